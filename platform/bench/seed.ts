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

/** How bulk calls differ from their template, so that filters have something to select. */
export interface BulkOptions {
  /** Calls already seeded into the account this way: new ones are older still. */
  after?: number;
  /** Every n-th call is `no_answer` (no talk, no transcript) instead of the template's outcome. */
  noAnswerEvery?: number;
}

/**
 * Copies a call `count` times into an account straight in the call schema (one INSERT ... SELECT),
 * each a millisecond older than the last: history for the list and the export, in final states, so
 * the call service's keeper never touches them.
 */
export async function bulkCalls(
  databaseUrl: string,
  templateId: string,
  accountId: string,
  count: number,
  options: BulkOptions = {},
) {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  const every = options.noAnswerEvery;
  const noAnswer = (value: string, otherwise: string) =>
    every ? `CASE WHEN g % ${every} = 0 THEN ${value} ELSE ${otherwise} END` : otherwise;
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
          return `t.created_at - ((g + ${options.after ?? 0}) * interval '1 millisecond')`;
        case 'owner':
          return 'NULL';
        case 'status':
          return noAnswer(`'no_answer'`, 't.status');
        case 'transcript':
          return noAnswer(`'[]'::jsonb`, 't.transcript');
        // The transcript's text for the export (the call service's migration 014), as the service writes it.
        case 'transcript_text':
          return noAnswer(`'[]'`, 't.transcript_text');
        case 'duration_seconds':
          return noAnswer('0', 't.duration_seconds');
        case 'answered_at':
          return noAnswer('NULL', 't.answered_at');
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

/** One call in ten of a seeded history did not connect: what the history's status filter selects. */
export const HISTORY_NO_ANSWER_EVERY = 10;
const HISTORY_BATCH = 250_000;

/** The history section's accounts: the same calls, a short history and a long one. */
export interface Histories {
  small: Tenant & { calls: number };
  large: Tenant & { calls: number };
}

/**
 * Two accounts of the history (and export) sections, their calls copied from the template call
 * (a completed call's real transcript), one in ten no_answer. The long history is inserted in
 * batches, each its own statement, so no single transaction holds a million rows.
 */
export async function seedHistories(
  url: string,
  databaseUrl: string,
  adminToken: string,
  templateId: string,
  sizes: { small: number; large: number },
): Promise<Histories> {
  const options = { noAnswerEvery: HISTORY_NO_ANSWER_EVERY };
  const small = await tenant(url, adminToken, 'Bench history (short)', false);
  const large = await tenant(url, adminToken, 'Bench history (long)', false);
  await bulkCalls(databaseUrl, templateId, small.accountId, sizes.small, options);
  for (let after = 0; after < sizes.large; after += HISTORY_BATCH) {
    const count = Math.min(HISTORY_BATCH, sizes.large - after);
    await bulkCalls(databaseUrl, templateId, large.accountId, count, { ...options, after });
  }
  return { small: { ...small, calls: sizes.small }, large: { ...large, calls: sizes.large } };
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
  await bulkCalls(databaseUrl, String(template.id), exporter.accountId, sizes.exportCalls, {
    noAnswerEvery: HISTORY_NO_ANSWER_EVERY,
  });
  return { main, writer, campaign, exporter, fanout, template };
}
