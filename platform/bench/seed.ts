import postgres from 'postgres';
import { api, sleep } from './support';

export interface Tenant {
  accountId: string;
  key: string;
  agentId?: string;
}

export interface Seeded {
  /** GET by id and GET /v1/calls: one agent, LIST_CALLS calls. */
  main: Tenant & { agentId: string };
  /** POST /v1/call. */
  writer: Tenant & { agentId: string };
  campaign: Tenant & { agentId: string };
  exporter: Tenant;
  /** Fan-out: one account per group of subscribers. */
  fanout: Tenant[];
  /** A completed call as the API returns it: the record the synthetic live events carry. */
  template: Record<string, unknown>;
}

type Envelope<T> = { data: T };

/** A high enterprise limit: the benchmark measures the edge with its budget counted, never turned off. */
export const BENCH_RATE_LIMIT = 1_000_000;

async function tenant(url: string, adminToken: string, name: string, withAgent: boolean): Promise<Tenant> {
  const account = await api<Envelope<{ id: string }>>(url, 'POST', '/admin/accounts', {
    key: adminToken,
    body: { name, plan: 'enterprise', rate_limit_per_minute: BENCH_RATE_LIMIT },
  });
  const key = await api<Envelope<{ key: string }>>(
    url,
    'POST',
    `/admin/accounts/${account.data.id}/api-keys`,
    { key: adminToken, body: { name: 'bench' } },
  );
  const result: Tenant = { accountId: account.data.id, key: key.data.key };
  if (withAgent) {
    const agent = await api<Envelope<{ id: string }>>(url, 'POST', '/v1/agents', {
      key: result.key,
      body: {
        name: 'Riley',
        agent_type: 'real_estate_lead_qualifier',
        start_flow: 'Hi, this is Riley from Acme Homes.',
        end_flow: 'Thanks for your time, goodbye.',
      },
    });
    result.agentId = agent.data.id;
  }
  return result;
}

async function completedCall(url: string, who: Tenant): Promise<Record<string, unknown>> {
  const placed = await api<Envelope<{ id: string }>>(url, 'POST', '/v1/call', {
    key: who.key,
    body: {
      agent_id: who.agentId,
      source_number: '+14155550100',
      phone_number: '+14155551234',
      metadata: { name: 'Jordan' },
    },
  });
  for (let i = 0; i < 600; i++) {
    const call = await api<Envelope<Record<string, unknown>>>(url, 'GET', `/v1/calls/${placed.data.id}`, {
      key: who.key,
    });
    if (call.data.status === 'completed') return call.data;
    await sleep(100);
  }
  throw new Error('the template call never completed');
}

/**
 * Copies a call `count` times into an account straight in the call schema (one INSERT ... SELECT),
 * each a millisecond older than the last: history for the list and the export, in final states, so
 * the call service's keeper never touches them.
 */
export async function bulkCalls(databaseUrl: string, templateId: string, accountId: string, count: number) {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    const columns = (
      await sql<{ column_name: string }[]>`
        SELECT column_name FROM information_schema.columns
        WHERE table_schema = 'call' AND table_name = 'calls' ORDER BY ordinal_position`
    ).map((c) => c.column_name);
    const expression = (column: string) => {
      switch (column) {
        case 'id':
          return 'gen_random_uuid()';
        case 'account_id':
          return `'${accountId}'::uuid`;
        case 'created_at':
          return `t.created_at - (g * interval '1 millisecond')`;
        case 'owner':
          return 'NULL';
        default:
          return `t.${column}`;
      }
    };
    await sql.unsafe(
      `INSERT INTO call.calls (${columns.join(', ')})
       SELECT ${columns.map(expression).join(', ')}
       FROM call.calls t CROSS JOIN generate_series(1, ${count}) AS g WHERE t.id = $1`,
      [templateId],
    );
    await sql`ANALYZE call.calls`;
  } finally {
    await sql.end();
  }
}

export async function seed(
  url: string,
  databaseUrl: string,
  adminToken: string,
  sizes: { listCalls: number; exportCalls: number; fanoutAccounts: number },
): Promise<Seeded> {
  const main = (await tenant(url, adminToken, 'Bench main', true)) as Seeded['main'];
  const writer = (await tenant(url, adminToken, 'Bench writer', true)) as Seeded['writer'];
  const campaign = (await tenant(url, adminToken, 'Bench campaign', true)) as Seeded['campaign'];
  const exporter = await tenant(url, adminToken, 'Bench export', false);
  const fanout: Tenant[] = [];
  for (let i = 0; i < sizes.fanoutAccounts; i++)
    fanout.push(await tenant(url, adminToken, `Bench fan-out ${i}`, false));
  const template = await completedCall(url, main);
  await bulkCalls(databaseUrl, String(template.id), main.accountId, sizes.listCalls);
  await bulkCalls(databaseUrl, String(template.id), exporter.accountId, sizes.exportCalls);
  return { main, writer, campaign, exporter, fanout, template };
}
