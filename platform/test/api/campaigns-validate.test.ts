import type { Call, CampaignValidation, PageOf } from '@voice/shared';
import { infraModes } from '@voice/shared/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createVoiceClient } from '../../../client/src/index';
import { createKey, type TestAccount } from '../support/accounts';
import { startTestPlatform, type TestPlatform } from '../support/harness';
import { api, type Envelope } from '../support/http';
import { campaignApi, createAgent, FROM, pollingAccount } from './campaigns-support';

const LISTED = '+14155550101';

/** A Monday 00:00 UTC at least a week ahead: a start_at that makes the ETA deterministic. */
function nextMonday(): Date {
  const at = new Date(Date.now() + 7 * 86_400_000);
  at.setUTCHours(0, 0, 0, 0);
  at.setUTCDate(at.getUTCDate() + ((8 - at.getUTCDay()) % 7));
  return at;
}

describe.each(infraModes())('POST /v1/campaigns/validate (%s)', (mode) => {
  let t: TestPlatform;
  let acme: TestAccount;
  let globex: TestAccount;
  let acmeAgent: string;
  let globexAgent: string;
  let http: ReturnType<typeof campaignApi>;

  beforeAll(async () => {
    t = await startTestPlatform(mode, { config: { SIM_TIME_SCALE: 0.001 } });
    acme = await pollingAccount(t, 'Acme');
    globex = await pollingAccount(t, 'Globex');
    acmeAgent = await createAgent(t.url, acme.key);
    globexAgent = await createAgent(t.url, globex.key);
    http = campaignApi(t.url, acme.key);
    const listed = await http.send('POST', '/v1/do-not-call', { numbers: [LISTED] });
    expect(listed.status, listed.text).toBe(200);
  });
  afterAll(async () => {
    await t?.stop();
  });

  const body = (extra: Record<string, unknown> = {}) => ({
    name: 'Spring',
    agent_id: acmeAgent,
    phone_number: FROM,
    contacts: [{ phone: '+12125550100' }],
    ...extra,
  });

  async function validate(extra: Record<string, unknown>): Promise<CampaignValidation> {
    const res = await http.send<CampaignValidation>('POST', '/v1/campaigns/validate', body(extra));
    expect(res.status, res.text).toBe(200);
    return res.body.data;
  }

  const mixed = [
    { phone: '+12125550100', name: 'New York' }, // 0 valid
    { phone: '' }, // 1 missing
    { name: 'no phone' }, // 2 missing
    { phone: '555-0100' }, // 3 invalid
    { phone: ' +12125550100 ' }, // 4 duplicate of 0
    { phone: LISTED }, // 5 do-not-call
    { phone: '+14155550102' }, // 6 valid, Los Angeles
    { phone: '+14155550103', timezone: 'Europe/Paris' }, // 7 valid, its own zone
    { phone: '+99955550100' }, // 8 valid, no zone: the fallback
  ];

  it('counts what a create would dial and skip, with the first rows of each', async () => {
    const report = await validate({ contacts: mixed });
    expect(report.counts).toEqual({
      total: 9,
      valid: 4,
      invalid: 3,
      missing_phone: 2,
      invalid_phone: 1,
      duplicate: 1,
      do_not_call: 1,
    });
    expect(report.problems).toEqual({
      missing_phone: [
        { position: 1, value: null },
        { position: 2, value: null },
      ],
      invalid_phone: [{ position: 3, value: '555-0100' }],
      duplicate: [{ position: 4, value: '+12125550100' }],
      do_not_call: [{ position: 5, value: LISTED }],
    });
  });

  it('counts the contacts per time zone, saying where each zone came from', async () => {
    const report = await validate({ contacts: mixed });
    const zones = Object.fromEntries(report.time_zones.map((z) => [z.zone, z]));
    expect(Object.keys(zones).sort()).toEqual([
      'America/Los_Angeles',
      'America/New_York',
      'Europe/Paris',
      'UTC',
    ]);
    expect(zones['America/New_York']).toMatchObject({ contacts: 1, sources: { number: 1 } });
    expect(zones['America/Los_Angeles']).toMatchObject({ contacts: 1, sources: { number: 1 } });
    expect(zones['Europe/Paris']).toMatchObject({ contacts: 1, sources: { contact: 1 } });
    expect(zones.UTC).toMatchObject({ contacts: 1, sources: { fallback: 1 } });
    const withFallback = await validate({
      contacts: mixed,
      calling_window: { start: '09:00', end: '17:00', fallback_timezone: 'Asia/Tokyo' },
    });
    expect(withFallback.time_zones.find((z) => z.zone === 'Asia/Tokyo')).toMatchObject({
      contacts: 1,
      sources: { fallback: 1 },
    });
  });

  it('estimates: a higher cap is shorter, a window finishes later', async () => {
    const start_at = nextMonday().toISOString();
    const contacts = Array.from({ length: 120 }, (_, i) => ({
      phone: `+4420790${String(i).padStart(5, '0')}`,
    }));
    const slow = await validate({ contacts, start_at, max_concurrent_calls: 1 });
    expect(slow.eta).toEqual({
      eta_seconds: 120 * 60,
      estimated_completion_at: new Date(Date.parse(start_at) + 120 * 60_000).toISOString(),
      starts_at: start_at,
      max_concurrent_calls: 1,
      account_max_concurrent_calls: 200,
      avg_call_seconds: 60,
      avg_call_source: 'default',
      agent_calls_sampled: 0,
      retries_counted: false,
      calling_window: false,
    });
    const fast = await validate({ contacts, start_at, max_concurrent_calls: 10 });
    expect(fast.eta.eta_seconds).toBe(12 * 60);
    // 09:00-10:00 in London (UTC in winter, UTC+1 in summer): two hours of calls take two days.
    const windowed = await validate({
      contacts,
      start_at,
      max_concurrent_calls: 1,
      calling_window: { start: '09:00', end: '10:00' },
    });
    expect(windowed.eta.calling_window).toBe(true);
    expect(windowed.time_zones).toMatchObject([{ zone: 'Europe/London', contacts: 120 }]);
    const completion = Date.parse(windowed.eta.estimated_completion_at ?? '');
    expect(completion - Date.parse(start_at)).toBeGreaterThan(24 * 3600_000);
    expect(new Date(completion).toISOString().slice(11, 16)).toMatch(/^(09|10|08):00$/);
  });

  it('takes the average call length from the agent’s ended calls', async () => {
    const agent = await createAgent(t.url, acme.key, 'Sam');
    const placed = await http.send<Call>('POST', '/v1/call', {
      agent_id: agent,
      source_number: FROM,
      phone_number: '+14155550199',
    });
    expect(placed.status, placed.text).toBe(201);
    const deadline = Date.now() + 60_000;
    for (;;) {
      const call = await http.send<Call>('GET', `/v1/calls/${placed.body.data.id}`);
      if (call.body.data.ended_at) break;
      if (Date.now() > deadline) throw new Error(`the call never ended: ${call.text}`);
      await new Promise((r) => setTimeout(r, 40));
    }
    const contacts = Array.from({ length: 30 }, (_, i) => ({ phone: `+1415555${String(1000 + i)}` }));
    const { eta } = await validate({ agent_id: agent, contacts, max_concurrent_calls: 3 });
    expect(eta).toMatchObject({ avg_call_source: 'agent_history', agent_calls_sampled: 1 });
    // At this test's carrier pace a call lasts well under a second: counted as at least one.
    expect(eta.avg_call_seconds).toBeGreaterThanOrEqual(1);
    expect(eta.eta_seconds).toBe(Math.ceil((30 * eta.avg_call_seconds) / 3));
  });

  it('runs the estimate at the account\u2019s limit when it is below the campaign\u2019s cap', async () => {
    const account = await api<Envelope<{ id: string }>>(t.url, 'POST', '/admin/accounts', {
      key: t.adminToken,
      body: { name: 'Small', plan: 'enterprise', rate_limit_per_minute: 1_000_000, max_concurrent_calls: 2 },
    });
    expect(account.status, account.text).toBe(201);
    const key = await createKey(t, account.body.data.id);
    const small = campaignApi(t.url, key);
    const agent = await createAgent(t.url, key);
    const contacts = Array.from({ length: 20 }, (_, i) => ({ phone: `+1415555${String(2000 + i)}` }));
    const res = await small.send<CampaignValidation>(
      'POST',
      '/v1/campaigns/validate',
      body({ agent_id: agent, contacts, max_concurrent_calls: 10 }),
    );
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.eta).toMatchObject({
      max_concurrent_calls: 2,
      account_max_concurrent_calls: 2,
      eta_seconds: 10 * 60,
    });
  });

  it('creates nothing: no campaign, no call', async () => {
    const campaigns = async () => (await http.send<PageOf<unknown>>('GET', '/v1/campaigns')).body.data.total;
    const calls = async () => (await http.send<PageOf<Call>>('GET', '/v1/calls')).body.data.total;
    const before = { campaigns: await campaigns(), calls: await calls() };
    await validate({ contacts: mixed });
    await validate({ contacts: mixed, start_at: nextMonday().toISOString() });
    expect({ campaigns: await campaigns(), calls: await calls() }).toEqual(before);
  });

  it('refuses what create refuses, with the same 422s and 404', async () => {
    const bad: Record<string, unknown>[] = [
      { name: '' },
      { phone_number: '12345' },
      { contacts: [] },
      { contacts: [{ phone: { nested: true } }] },
      { max_concurrent_calls: 51 },
      { start_at: '2001-01-01T00:00:00Z' },
      { calling_window: { start: '20:00', end: '09:00', days: ['mon', 'Tue'] } },
      { calling_window: { start: '09:00', end: '17:00', timezone: 'Mars/Olympus' } },
      { agent_id: 'not-a-uuid' },
    ];
    for (const extra of bad) {
      const created = await http.send('POST', '/v1/campaigns', body(extra));
      const validated = await http.send('POST', '/v1/campaigns/validate', body(extra));
      expect(created.status, JSON.stringify(extra)).toBe(422);
      expect(validated.status, JSON.stringify(extra)).toBe(422);
      expect(validated.body.detail).toEqual(created.body.detail);
    }
    const foreign = body({ agent_id: globexAgent });
    const created = await http.send('POST', '/v1/campaigns', foreign);
    const validated = await http.send('POST', '/v1/campaigns/validate', foreign);
    expect(created.status).toBe(404);
    expect(validated.status).toBe(404);
    expect(validated.body.detail).toEqual(created.body.detail);
    const readOnly = campaignApi(t.url, (await pollingAccount(t, 'Reader', ['campaigns:read'])).key);
    expect((await readOnly.send('POST', '/v1/campaigns/validate', body())).status).toBe(403);
  });

  it('answers over GraphQL and tRPC', async () => {
    const gql = await api<{ data?: { validateCampaign: Record<string, unknown> }; errors?: unknown[] }>(
      t.url,
      'POST',
      '/graphql',
      {
        key: acme.key,
        body: {
          query: `mutation ($input: CreateCampaignInput!) {
            validateCampaign(input: $input) {
              counts { total valid doNotCall missingPhone }
              problems { doNotCall { position value } }
              timeZones { zone contacts sources { number } }
              eta { etaSeconds avgCallSource callingWindow }
            }
          }`,
          variables: {
            input: {
              name: 'Spring',
              agentId: acmeAgent,
              phoneNumber: FROM,
              contacts: [{ phone: '+12125550100' }, { phone: LISTED }, {}],
              callingWindow: { start: '00:00', end: '24:00', fallbackTimezone: 'UTC' },
            },
          },
        },
      },
    );
    expect(gql.body, gql.text).toEqual({
      data: {
        validateCampaign: {
          counts: { total: 3, valid: 1, doNotCall: 1, missingPhone: 1 },
          problems: { doNotCall: [{ position: 1, value: LISTED }] },
          timeZones: [{ zone: 'America/New_York', contacts: 1, sources: { number: 1 } }],
          eta: { etaSeconds: 60, avgCallSource: 'DEFAULT', callingWindow: true },
        },
      },
    });
    const client = createVoiceClient({ url: t.url, apiKey: acme.key });
    const report = await client.campaigns.validate.mutate(body({ contacts: mixed }));
    expect(report.counts.valid).toBe(4);
  });

  it('answers a list of 100,000 contacts', async () => {
    const contacts = Array.from({ length: 100_000 }, (_, i) => ({
      phone: `+1212${String(5_000_000 + i).padStart(7, '0')}`,
      first_name: `Contact ${i}`,
    }));
    contacts[99_999] = { phone: LISTED, first_name: 'Listed' };
    const started = performance.now();
    const report = await validate({ contacts, max_concurrent_calls: 50 });
    const ms = Math.round(performance.now() - started);
    // A measurement for the record, not an assertion.
    console.info(`[${mode}] validate of 100,000 contacts answered in ${ms} ms`);
    expect(report.counts).toMatchObject({ total: 100_000, valid: 99_999, do_not_call: 1, duplicate: 0 });
    expect(report.time_zones).toMatchObject([{ zone: 'America/New_York', contacts: 99_999 }]);
    expect(report.eta.eta_seconds).toBe(Math.ceil((99_999 * 60) / 50));
  });
});
