import { encodeCursor, freePort, PAGE_MAX } from '@voice/shared';
import type { TestPlatform } from '../../test/support/harness';
import { api, type Envelope } from '../../test/support/http';
import type { Fixtures } from './values';

async function ok<T>(
  promise: Promise<{ status: number; body: unknown; text: string }>,
  what: string,
): Promise<T> {
  const res = await promise;
  if (res.status >= 300) throw new Error(`fixture ${what}: ${res.status} ${res.text.slice(0, 300)}`);
  return (res.body as Envelope<T>).data;
}

const AGENT = {
  name: 'Fuzz agent',
  start_flow: 'Hello, this is a test call.',
  end_flow: 'Thank you, goodbye.',
};

/**
 * Real resources for the fuzz to aim at, through the API itself: an enterprise account (a budget
 * the fuzz cannot spend) with a full and a read-only key, a revoked key, another account's agent,
 * agents (one with a loopback webhook), a prompt version, a call and its recording link, a webhook
 * delivery, campaigns (scheduled and running) and SIP trunks (one of another account).
 */
export async function createFixtures(
  t: TestPlatform,
): Promise<Fixtures & { restock(): Promise<void>; spare: { id: string; key: string } }> {
  const admin = t.adminToken!;
  const deadPort = await freePort();
  const account = await ok<{ id: string }>(
    api(t.url, 'POST', '/admin/accounts', {
      key: admin,
      body: { name: 'Fuzz', plan: 'enterprise', rate_limit_per_minute: 1_000_000 },
    }),
    'account',
  );
  const newKey = (accountId: string, scopes?: string[]) =>
    ok<{ id: string; key: string }>(
      api(t.url, 'POST', `/admin/accounts/${accountId}/api-keys`, {
        key: admin,
        body: scopes ? { scopes } : {},
      }),
      'key',
    );
  const full = await newKey(account.id);
  const readOnly = await newKey(account.id, ['agents:read']);
  const revoked = await newKey(account.id);
  await api(t.url, 'DELETE', `/admin/api-keys/${revoked.id}`, { key: admin });
  const otherAccount = await ok<{ id: string }>(
    api(t.url, 'POST', '/admin/accounts', {
      key: admin,
      body: { name: 'Other', plan: 'enterprise', rate_limit_per_minute: 1_000_000 },
    }),
    'other account',
  );
  const other = await newKey(otherAccount.id);
  // A key the fuzz may revoke through the admin API: never one it calls with.
  const spare = await newKey(otherAccount.id);

  const key = full.key;
  const createAgent = (body: Record<string, unknown> = AGENT, withKey = key) =>
    ok<{ id: string }>(api(t.url, 'POST', '/v1/agents', { key: withKey, body }), 'agent');
  const theirAgent = await createAgent(AGENT, other.key);
  const plain = await createAgent();
  const hooked = await createAgent({
    ...AGENT,
    webhook_config: { url: `http://127.0.0.1:${deadPort}/hook`, secret: 'fuzz-secret-0123456789' },
  });
  const version = await ok<{ id: string }>(
    api(t.url, 'POST', `/v1/agents/${plain.id}/prompt-versions`, { key, body: { label: 'v1' } }),
    'prompt version',
  );
  const call = await ok<{ id: string }>(
    api(t.url, 'POST', '/v1/call', {
      key,
      body: { agent_id: plain.id, source_number: '+14155550100', phone_number: '+14155550123' },
    }),
    'call',
  );
  const delivery = await ok<{ id: string }>(
    api(t.url, 'POST', `/v1/agents/${hooked.id}/webhook-test`, { key }),
    'delivery',
  );
  const campaign = (startAt?: string) =>
    ok<{ id: string }>(
      api(t.url, 'POST', '/v1/campaigns', {
        key,
        body: {
          name: 'Fuzz campaign',
          agent_id: plain.id,
          phone_number: '+14155550100',
          contacts: [{ phone: '+14155550124' }, { phone: '+14155550125', name: 'x' }],
          ...(startAt ? { start_at: startAt } : {}),
        },
      }),
      'campaign',
    );
  // Pointed at a dead loopback port: should the fuzz make one the default, nothing leaves the host.
  const trunk = (withKey: string) =>
    ok<{ id: string }>(
      api(t.url, 'POST', '/v1/sip-trunks', {
        key: withKey,
        body: { name: 'Fuzz trunk', uri: `sip:127.0.0.1:${deadPort}`, username: 'fuzz', password: 'fuzz-pw' },
      }),
      'SIP trunk',
    );
  const trunks = [await trunk(key), await trunk(other.key)];
  const scheduled = await campaign(new Date(Date.now() + 86_400_000).toISOString());
  const running = await campaign();

  // The call ends fast at the fuzz's carrier pace; its record then has a signed recording link.
  let recordingQuery: Record<string, string> | undefined;
  let recordingFile = `${call.id}.wav`;
  const deadline = Date.now() + 60_000;
  while (!recordingQuery && Date.now() < deadline) {
    const record = await ok<{ recording_url: string | null; status: string }>(
      api(t.url, 'GET', `/v1/calls/${call.id}`, { key }),
      'call record',
    );
    if (record.recording_url) {
      const url = new URL(record.recording_url);
      recordingFile = url.pathname.split('/').pop() ?? recordingFile;
      recordingQuery = Object.fromEntries(url.searchParams);
    } else if (!['initializing', 'ringing', 'in_progress'].includes(record.status)) break;
    else await new Promise((resolve) => setTimeout(resolve, 100));
  }

  const industries = await ok<{ id: string; name: string }[]>(
    api(t.url, 'GET', '/v1/industries'),
    'industries',
  );
  const ids: Record<string, string[]> = {
    agent_id: [plain.id, hooked.id, theirAgent.id],
    version_id: [version.id],
    call_id: [call.id],
    campaign_id: [scheduled.id, running.id],
    delivery_id: [delivery.id],
    trunk_id: trunks.map((made) => made.id),
    account_id: [account.id, otherAccount.id],
    key_id: [spare.id],
    industry: industries.flatMap((industry) => [industry.id, industry.name]).slice(0, 6),
    file: [recordingFile],
    // Well-formed cursors, which get past their decoding to the database: of the call list and the
    // admin ones, of no list, far back, and on the last page a cursor may name.
    cursor: [
      encodeCursor(2, ['2026-01-01 00:00:00.123456+00', call.id], 'calls'),
      encodeCursor(PAGE_MAX, ['1970-01-01 00:00:00+00', call.id], 'calls'),
      encodeCursor(3, ['2999-12-31 23:59:59-15:59:59', account.id], 'accounts'),
      encodeCursor(2, ['2026-01-01 00:00:00+05:30', spare.id], 'api_keys'),
      encodeCursor(2, ['2026-01-01 00:00:00+00', call.id]),
    ],
  };

  /**
   * Puts back what the fuzz deleted or changed (agents, prompt versions, the two accounts' plan and
   * rate limit: a valid PATCH may move them to a plan of 300 requests a minute), so later cases
   * still hit live ones and restocking itself is not refused.
   */
  const restock = async () => {
    for (const id of [account.id, otherAccount.id])
      await ok(
        api(t.url, 'PATCH', `/admin/accounts/${id}`, {
          key: admin,
          body: { plan: 'enterprise', rate_limit_per_minute: 1_000_000 },
        }),
        'account settings',
      );
    const agents = ids.agent_id!;
    for (let i = 0; i < agents.length; i++) {
      const res = await api(t.url, 'GET', `/v1/agents/${agents[i]}`, { key: i === 2 ? other.key : key });
      if (res.status === 404)
        agents[i] = (
          await createAgent(
            i === 1 ? { ...AGENT, webhook_config: { url: `http://127.0.0.1:${deadPort}/hook` } } : AGENT,
            i === 2 ? other.key : key,
          )
        ).id;
    }
    const versions = await api<Envelope<{ items: { id: string }[] }>>(
      t.url,
      'GET',
      `/v1/agents/${agents[0]}/prompt-versions`,
      { key },
    );
    if (versions.status === 200 && versions.body.data.items.length === 0) {
      const saved = await ok<{ id: string }>(
        api(t.url, 'POST', `/v1/agents/${agents[0]}/prompt-versions`, { key, body: {} }),
        'version',
      );
      ids.version_id![0] = saved.id;
    } else if (versions.status === 200) ids.version_id![0] = versions.body.data.items[0]!.id;
  };

  return {
    ids,
    deadPort,
    keys: { full: full.key, readOnly: readOnly.key, other: other.key, revoked: revoked.key, admin },
    recordingQuery,
    restock,
    spare,
  };
}
