import {
  type Call,
  CallEndedPayload,
  type CallOutcome,
  Call as CallSchema,
  type PageOf,
} from '@voice/shared';
import { infraModes } from '@voice/shared/testing';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createVoiceClient } from '../../../client/src/index';
import { costs } from '../../../services/call/src/carrier/index';
import { createAccount, type TestAccount } from '../support/accounts';
import { startTestPlatform, type TestPlatform } from '../support/harness';
import { api, type Envelope } from '../support/http';
import {
  CallEndedBody,
  type ReceivedWebhook,
  signatureVerifies,
  startWebhookReceiver,
  type WebhookReceiver,
} from '../support/webhook-receiver';

const FROM = '+14155550100';
/** A "60-second" simulated call takes about 0.6 s of wall time. */
const SIM_TIME_SCALE = 0.01;
/** Any non-empty string is a secret (the API guide): one character signs like a long one. */
const SECRET = 'k';

/**
 * Each test number, what it ends as, and the SIP answer the simulated carrier reports; `name` tells
 * the two completed ones apart (0005's callee asks not to be called again).
 */
interface Case {
  name: string;
  phone: string;
  outcome: CallOutcome;
  sip: [number, string];
  audio: boolean;
  optedOut: boolean;
}
const testNumber = (name: CallOutcome, phone: string, sip: [number, string]): Case => ({
  name,
  phone,
  outcome: name,
  sip,
  audio: false,
  optedOut: false,
});
const CASES: Case[] = [
  testNumber('no_answer', '+14155550001', [480, 'Temporarily Unavailable']),
  testNumber('busy', '+14155550002', [486, 'Busy Here']),
  { ...testNumber('voicemail', '+14155550003', [200, 'OK']), audio: true },
  testNumber('failed', '+14155550004', [503, 'Service Unavailable']),
  { ...testNumber('completed', '+14155550005', [200, 'OK']), name: 'opted out', audio: true, optedOut: true },
  { ...testNumber('completed', '+14155551234', [200, 'OK']), audio: true },
];

/** The cells of one CSV line (RFC 4180 quoting; no cell of these calls holds a line break). */
function csvCells(line: string): string[] {
  const cells: string[] = [];
  for (let i = 0; ; i++) {
    if (line[i] === '"') {
      let value = '';
      for (let j = i + 1; ; ) {
        const quote = line.indexOf('"', j);
        if (line[quote + 1] === '"') {
          value += line.slice(j, quote + 1);
          j = quote + 2;
        } else {
          value += line.slice(j, quote);
          i = quote + 1;
          break;
        }
      }
      cells.push(value);
    } else {
      const comma = line.indexOf(',', i);
      const end = comma < 0 ? line.length : comma;
      cells.push(line.slice(i, end));
      i = end;
    }
    if (line[i] !== ',') return cells;
  }
}

interface Finished {
  call: Call;
  /** When the record was first read as final: nothing in it may be later than this. */
  observedAt: number;
}

/**
 * The call record and the CALL_ENDED body have the types the spec gives them for every outcome,
 * on every surface: sentiment one of three strings, recording_url a string, telephony present; and
 * their times are wall-clock times, never in the future, even with SIM_TIME_SCALE below 1.
 */
describe.each(infraModes())('call record types and times on every surface (%s)', (mode) => {
  let t: TestPlatform;
  let acme: TestAccount;
  let receiver: WebhookReceiver;
  let sql: postgres.Sql;
  /** By the number called. */
  const finished = new Map<string, Finished>();
  const hookPath = `/ok/types-${mode}`;

  const get = async (id: string) => {
    const res = await api<Envelope<Call>>(t.url, 'GET', `/v1/calls/${id}`, { key: acme.key });
    expect(res.status).toBe(200);
    return res.body.data;
  };
  const gql = async <T>(query: string, variables: Record<string, unknown>) => {
    const res = await api<{ data?: T; errors?: unknown[] }>(t.url, 'POST', '/graphql', {
      key: acme.key,
      body: { query, variables },
    });
    expect(res.body.errors).toBeUndefined();
    return res.body.data as T;
  };
  /** An export's body as text (JSON lines are not one JSON document). */
  const exported = async (query: string) => {
    const res = await fetch(`${t.url}/v1/calls/export?${query}`, {
      headers: { authorization: `Bearer ${acme.key}` },
    });
    expect(res.status).toBe(200);
    return res.text();
  };
  const webhookFor = (sessionId: string): ReceivedWebhook | undefined =>
    receiver
      .requestsTo(hookPath)
      .find(
        (r) =>
          (JSON.parse(r.body.toString('utf8')) as { data: { session_id: string } }).data.session_id ===
          sessionId,
      );

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    t = await startTestPlatform(mode, { config: { SIM_TIME_SCALE } });
    sql = postgres(t.databaseUrl, { max: 1, onnotice: () => {} });
    acme = await createAccount(t, { name: 'Acme', plan: 'enterprise', rateLimitPerMinute: 100_000 });
    const agent = await api<Envelope<{ id: string }>>(t.url, 'POST', '/v1/agents', {
      key: acme.key,
      body: {
        name: 'Riley',
        start_flow: 'Hi, this is Riley from Acme.',
        end_flow: 'Thanks for your time, goodbye!',
        webhook_config: { url: `${receiver.url}${hookPath}`, secret: SECRET },
      },
    });
    expect(agent.status, agent.text).toBe(201);
    const placed = await Promise.all(
      CASES.map(async ({ phone }) => {
        const res = await api<Envelope<Call>>(t.url, 'POST', '/v1/call', {
          key: acme.key,
          body: { agent_id: agent.body.data.id, source_number: FROM, phone_number: phone },
        });
        expect(res.status, res.text).toBe(201);
        return res.body.data;
      }),
    );
    // A call that has not ended yet has the same types already.
    for (const call of placed) {
      expect(CallSchema.safeParse(call).error?.issues ?? []).toEqual([]);
      expect(call).toMatchObject({ sentiment: 'neutral', recording_url: '' });
      expect(call.telephony).toEqual({
        carrier: 'simulated',
        trunk_id: null,
        sip_code: null,
        sip_reason: null,
      });
    }
    const deadline = Date.now() + 20_000;
    while (finished.size < CASES.length || placed.some((call) => !webhookFor(call.id))) {
      if (Date.now() > deadline) throw new Error('calls or their webhooks did not finish');
      const page = await api<Envelope<PageOf<Call>>>(t.url, 'GET', '/v1/calls?page_size=100', {
        key: acme.key,
      });
      const readAt = Date.now();
      for (const record of page.body.data.items) {
        if (record.ended_at && !finished.has(record.phone_number))
          finished.set(record.phone_number, { call: record, observedAt: readAt });
      }
      await new Promise((r) => setTimeout(r, 25));
    }
  });
  afterAll(async () => {
    await sql?.end({ timeout: 5 });
    await t?.stop();
    await receiver?.close();
  });

  const each = (name: string, check: (c: (typeof CASES)[number], f: Finished) => void | Promise<void>) =>
    it.each(CASES)(`${name}: $name`, async (c) => {
      const f = finished.get(c.phone);
      if (!f) throw new Error(`no finished ${c.name} call`);
      await check(c, f);
    });

  each(
    'REST: sentiment, recording_url, telephony and opted_out have their types',
    ({ outcome, sip, audio, optedOut }, { call }) => {
      expect(CallSchema.safeParse(call).error?.issues ?? []).toEqual([]);
      expect(call.status).toBe(outcome);
      if (optedOut) expect(call.sentiment).toBe('negative');
      else if (outcome === 'completed') expect(['positive', 'neutral', 'negative']).toContain(call.sentiment);
      else expect(call.sentiment).toBe('neutral');
      expect(call.opted_out).toBe(optedOut);
      if (optedOut) {
        // The callee says so in the transcript, and the agent closes the conversation.
        expect(call.call_end_reason).toBe('conversation_completed');
        expect(call.transcript.some((l) => l.role === 'user' && /call me again/.test(l.content))).toBe(true);
      }
      // Simulated lines were never recognised from audio: no line has a confidence.
      for (const line of call.transcript) expect(line).not.toHaveProperty('confidence');
      if (audio) expect(new URL(call.recording_url).pathname).toBe(`/v1/recordings/${call.id}.wav`);
      else expect(call.recording_url).toBe('');
      expect(call.telephony).toEqual({
        carrier: 'simulated',
        trunk_id: null,
        sip_code: sip[0],
        sip_reason: sip[1],
      });
    },
  );

  each('REST: times are wall-clock, duration and costs follow them', ({ audio }, { call, observedAt }) => {
    const created = Date.parse(call.created_at);
    const started = Date.parse(call.started_at!);
    const ended = Date.parse(call.ended_at!);
    expect(started).toBeGreaterThanOrEqual(created);
    expect(ended).toBeGreaterThanOrEqual(started);
    // The bug this guards against: ended_at minutes after the record said it had ended.
    expect(ended).toBeLessThanOrEqual(observedAt);
    if (audio) {
      const answered = Date.parse(call.answered_at!);
      expect(answered).toBeGreaterThanOrEqual(started);
      expect(answered).toBeLessThanOrEqual(ended);
      // Tens of simulated seconds took well under ten seconds of wall time.
      expect(ended - answered).toBeLessThan(10_000);
      expect(call.duration_seconds).toBe(Math.ceil((ended - answered) / 1000));
      expect(call.duration_seconds).toBeGreaterThanOrEqual(1);
      const clock = (at: number) => new Date(at).toISOString().slice(11, 19);
      for (const line of call.transcript) {
        expect(line.timestamp >= clock(answered) && line.timestamp <= clock(ended), line.timestamp).toBe(
          true,
        );
      }
    } else {
      expect(call.answered_at).toBeNull();
      expect(call.duration_seconds).toBe(0);
    }
    expect(call.duration).toBe(call.duration_seconds);
    const expected = costs(call.duration_seconds);
    expect({ ai: call.ai_cost, telephony: call.telephony_cost, total: call.total_cost }).toEqual({
      ai: expected.ai_cost,
      telephony: expected.telephony_cost,
      total: expected.total_cost,
    });
  });

  each('REST Get Call carries the same record as the list', async (_c, { call }) => {
    const { recording_url: link, ...rest } = call;
    const got = await get(call.id);
    expect(got).toMatchObject(rest);
    expect(got.recording_url === '').toBe(link === '');
  });

  each(
    'webhook: the CALL_ENDED body has the spec types, signed with a one-character secret',
    (_c, { call }) => {
      const request = webhookFor(call.id);
      if (!request) throw new Error(`no webhook for ${call.id}`);
      expect(signatureVerifies(SECRET, request.body, request.headers['x-service-signature'] as string)).toBe(
        true,
      );
      const sent = JSON.parse(request.body.toString('utf8')) as unknown;
      const body = CallEndedBody.parse(sent);
      // What the OpenAPI document's `webhooks` section says is sent.
      expect(CallEndedPayload.safeParse(sent).error?.issues ?? []).toEqual([]);
      expect(body.data).toMatchObject({
        status: call.status,
        sentiment: call.sentiment,
        duration_seconds: call.duration_seconds,
        started_at: call.started_at,
        ended_at: call.ended_at,
        total_cost: call.total_cost,
        telephony: call.telephony,
        opted_out: call.opted_out,
        transcript: call.transcript,
      });
      expect(body.data.recording_url === '').toBe(call.recording_url === '');
      expect(Date.parse(body.data.ended_at)).toBeLessThanOrEqual(request.at);
      expect(Date.parse(body.timestamp)).toBeLessThanOrEqual(request.at);
    },
  );

  each('GraphQL: the same values, through non-null fields', async ({ sip, optedOut }, { call }) => {
    const { call: got } = await gql<{ call: Record<string, unknown> }>(
      'query ($id: ID!) { call(id: $id) { sentiment recordingUrl endedAt durationSeconds optedOut ' +
        'transcript { role content confidence } telephony { carrier trunkId sipCode sipReason } } }',
      { id: call.id },
    );
    expect(got).toMatchObject({
      sentiment: call.sentiment.toUpperCase(),
      endedAt: call.ended_at,
      durationSeconds: call.duration_seconds,
      optedOut,
      transcript: call.transcript.map((l) => ({
        role: l.role.toUpperCase(),
        content: l.content,
        confidence: null,
      })),
      telephony: { carrier: 'SIMULATED', trunkId: null, sipCode: sip[0], sipReason: sip[1] },
    });
    expect(got.recordingUrl === '').toBe(call.recording_url === '');
  });

  it('GraphQL types sentiment, recordingUrl and telephony as non-null', async () => {
    const { __type } = await gql<{ __type: { fields: { name: string; type: { kind: string } }[] } }>(
      '{ __type(name: "Call") { fields { name type { kind } } } }',
      {},
    );
    const kinds = Object.fromEntries(__type.fields.map((f) => [f.name, f.type.kind]));
    expect(kinds).toMatchObject({
      sentiment: 'NON_NULL',
      recordingUrl: 'NON_NULL',
      telephony: 'NON_NULL',
      optedOut: 'NON_NULL',
    });
  });

  each('tRPC: the same record', async (_c, { call }) => {
    const got = await createVoiceClient({ url: t.url, apiKey: acme.key }).calls.get.query({ id: call.id });
    const { recording_url: link, ...rest } = call;
    expect(got).toMatchObject(rest);
    expect(got.recording_url === '').toBe(link === '');
  });

  it('export: JSON lines and CSV carry the same values', async () => {
    const jsonl = await exported('format=jsonl');
    const records = new Map(
      jsonl
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Call)
        .map((c) => [c.id, c]),
    );
    const csv = await exported('format=csv');
    const [header, ...rows] = csv.trim().split('\r\n');
    const columns = header!.split(',');
    expect(columns).toEqual(
      expect.arrayContaining([
        'sentiment',
        'recording_url',
        'carrier',
        'sip_code',
        'sip_reason',
        'opted_out',
      ]),
    );
    const optedOutAt = columns.indexOf('opted_out');
    for (const { name, phone, sip, optedOut } of CASES) {
      const { call } = finished.get(phone)!;
      const line = records.get(call.id);
      expect(CallSchema.safeParse(line).error?.issues ?? []).toEqual([]);
      expect(line).toMatchObject({
        sentiment: call.sentiment,
        telephony: call.telephony,
        opted_out: optedOut,
      });
      expect(line?.recording_url === '').toBe(call.recording_url === '');
      const row = rows.find((r) => r.startsWith(`${call.id},`));
      expect(row, name).toContain(`,${call.sentiment},`);
      expect(row, name).toContain(`,simulated,,${sip[0]},${sip[1]}`);
      expect(csvCells(row!)[optedOutAt], name).toBe(String(optedOut));
    }
  });

  it('reads a row stored before sentiment was always set (NULL) as neutral, everywhere', async () => {
    const { call } = finished.get(CASES.find((c) => c.outcome === 'busy')!.phone)!;
    await sql`UPDATE call.calls SET sentiment = NULL WHERE id = ${call.id}`;
    expect((await get(call.id)).sentiment).toBe('neutral');
    const { call: got } = await gql<{ call: { sentiment: string } }>(
      'query ($id: ID!) { call(id: $id) { sentiment } }',
      { id: call.id },
    );
    expect(got.sentiment).toBe('NEUTRAL');
    const trpc = await createVoiceClient({ url: t.url, apiKey: acme.key }).calls.get.query({ id: call.id });
    expect(trpc.sentiment).toBe('neutral');
    const jsonl = await exported('format=jsonl&status=busy');
    expect(JSON.parse(jsonl.trim().split('\n')[0]!)).toMatchObject({
      id: call.id,
      sentiment: 'neutral',
    });
  });
});
