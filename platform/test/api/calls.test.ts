import {
  type Call,
  Call as CallSchema,
  EVENTS,
  eventFilter,
  type PageOf,
  signRecordingUrl,
} from '@voice/shared';
import { infraModes } from '@voice/shared/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createAccount, createKey, type TestAccount } from '../support/accounts';
import { startTestPlatform, type TestPlatform } from '../support/harness';
import { api, type Envelope, type ErrorEnvelope } from '../support/http';

type Issues = { loc: (string | number)[]; msg: string; type: string }[];
const FROM = '+14155550100';
const MISSING = '00000000-0000-4000-8000-000000000000';

describe.each(infraModes())('calls (%s)', (mode) => {
  let t: TestPlatform;
  let acme: TestAccount;
  let other: TestAccount;
  let agentId: string;

  const call = <T = Call>(
    method: string,
    path: string,
    body?: unknown,
    key = acme.key,
    headers?: Record<string, string>,
  ) =>
    api<Envelope<T> & ErrorEnvelope>(t.url, method, path, {
      key,
      ...(body === undefined ? {} : { body }),
      ...(headers ? { headers } : {}),
    });

  async function waitForFinal(id: string, key = acme.key): Promise<Call> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const res = await call('GET', `/v1/calls/${id}`, undefined, key);
      expect(res.status).toBe(200);
      if (['completed', 'no_answer', 'failed', 'voicemail', 'busy'].includes(res.body.data.status))
        return res.body.data;
      if (Date.now() > deadline) throw new Error(`call ${id} still ${res.body.data.status}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async function place(phone: string, extra: Record<string, unknown> = {}, key = acme.key): Promise<Call> {
    const res = await call(
      'POST',
      '/v1/call',
      { agent_id: agentId, source_number: FROM, phone_number: phone, ...extra },
      key,
    );
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.data;
  }

  beforeAll(async () => {
    t = await startTestPlatform(mode, { config: { SIM_TIME_SCALE: 0.002 } });
    acme = await createAccount(t, { name: 'Acme' });
    other = await createAccount(t, { name: 'Other' });
    const agent = await api<Envelope<{ id: string }>>(t.url, 'POST', '/v1/agents', {
      key: acme.key,
      body: {
        name: 'Riley',
        agent_type: 'real_estate_lead_qualifier',
        start_flow: 'Hi, this is Riley from Acme Homes.',
        end_flow: 'Thanks for your time, goodbye!',
      },
    });
    expect(agent.status).toBe(201);
    agentId = agent.body.data.id;
  });
  afterAll(async () => t?.stop());

  it('answers Make a Call with the envelope and an initializing record', async () => {
    const res = await call('POST', '/v1/call', {
      agent_id: agentId,
      source_number: FROM,
      phone_number: '+14155551234',
      metadata: { name: 'Jordan', crm_id: 42 },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      success: true,
      request_id: expect.any(String),
      timestamp: expect.any(String),
    });
    expect(res.body.data).toMatchObject({
      status: 'initializing',
      phone_number: '+14155551234',
      agent: { id: agentId, name: 'Riley' },
      user_id: acme.accountId,
      metadata: { name: 'Jordan', crm_id: 42 },
    });
    expect(res.body.data.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.body.data.created_at).toMatch(/T.*(Z|[+-]\d\d:\d\d)$/);
  });

  it('completes a call with a full record: transcript, details, sentiment, costs, prompt hash', async () => {
    const placed = await place('+14155551234', { metadata: { name: 'Jordan' } });
    const done = await waitForFinal(placed.id);
    // Every field of the record, with its type, as the shared contract (and OpenAPI) describe it.
    expect(CallSchema.safeParse(done).error?.issues ?? []).toEqual([]);
    expect(done).toMatchObject({
      status: 'completed',
      direction: 'outbound',
      session_id: placed.id,
      agent_type: 'real_estate_lead_qualifier',
      call_end_reason: expect.any(String),
      ended_by: expect.any(String),
      cost_currency: 'USD',
    });
    expect(done.duration).toBeGreaterThan(0);
    expect(done.duration_seconds).toBe(done.duration);
    expect(done.duration_minutes).toBeCloseTo(done.duration / 60, 1);
    expect(done.transcript[0]).toMatchObject({
      role: 'agent',
      content: 'Hi, this is Riley from Acme Homes.',
    });
    expect(done.transcript.at(-1)).toMatchObject({
      role: 'agent',
      content: 'Thanks for your time, goodbye!',
    });
    for (const entry of done.transcript) expect(entry.timestamp).toMatch(/^\d{2}:\d{2}:\d{2}$/);
    expect(JSON.stringify(done.transcript)).toContain('Jordan');
    expect(['positive', 'neutral', 'negative']).toContain(done.sentiment);
    expect(done.call_summary).toBeTruthy();
    expect(done.details_collection?.collected_details.length).toBeGreaterThan(0);
    expect(done.total_cost).toBeCloseTo(done.ai_cost + done.telephony_cost, 4);
    expect(done.prompt_hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(Date.parse(done.ended_at!)).toBeGreaterThan(Date.parse(done.answered_at!));
  });

  it.each([
    ['+14155550001', 'no_answer'],
    ['+14155550002', 'busy'],
    ['+14155550003', 'voicemail'],
    ['+14155550004', 'failed'],
  ])('ends a call to %s as %s', async (phone, outcome) => {
    const done = await waitForFinal((await place(phone)).id);
    expect(done.status).toBe(outcome);
    expect(CallSchema.safeParse(done).error?.issues ?? []).toEqual([]);
    expect(done.ended_at).toBeTruthy();
    if (outcome !== 'voicemail') {
      expect(done.duration).toBe(0);
      expect(done.transcript).toEqual([]);
      expect(done.answered_at).toBeNull();
    }
  });

  it('publishes every transition once, in order: a live status event for each until the end, then exactly one CALL_ENDED', async () => {
    const bus = t.platform.infrastructure.bus;
    const statuses: string[] = [];
    const ended: { id: string; status: string; sequence: number | undefined }[] = [];
    const subs = [
      bus.subscribe(eventFilter(EVENTS.callStatusChanged, acme.accountId), (msg) => {
        const event = msg.data as { data: { call_id: string; status: string; sequence: number } };
        statuses.push(`${event.data.call_id}:${event.data.status}:${event.data.sequence}`);
      }),
      bus.subscribe(eventFilter(EVENTS.callEnded, acme.accountId), (msg) => {
        const { call, sequence } = (msg.data as { data: { call: Call; sequence?: number } }).data;
        ended.push({ id: call.id, status: call.status, sequence });
      }),
    ];
    try {
      const placed = await place('+14155557777');
      await waitForFinal(placed.id);
      // The events leave through the outbox after the row changed: wait for the last one, then
      // give a duplicate a moment to show (a quiet 300 ms).
      await vi.waitFor(
        () => {
          expect(ended.map((e) => e.id)).toContain(placed.id);
          expect(statuses.filter((s) => s.startsWith(placed.id)).length).toBeGreaterThanOrEqual(3);
        },
        { timeout: 30_000, interval: 20 },
      );
      await new Promise((r) => setTimeout(r, 300));
      // The end is announced once, by CALL_ENDED (live subscribers read it as the last status).
      expect(
        statuses.filter((s) => s.startsWith(placed.id)).map((s) => s.slice(placed.id.length + 1)),
      ).toEqual(['initializing:1', 'ringing:2', 'in_progress:3']);
      expect(ended.filter((e) => e.id === placed.id)).toEqual([
        { id: placed.id, status: 'completed', sequence: 4 },
      ]);
    } finally {
      await Promise.all(subs.map((s) => s.unsubscribe()));
    }
  });

  it('validates the body with one 422 entry per field', async () => {
    const res = await call('POST', '/v1/call', {
      agent_id: 'nope',
      source_number: '4155550100',
      phone_number: '+0123',
      metadata: 'x',
    });
    expect(res.status).toBe(422);
    expect((res.body.detail as Issues).map((d) => d.loc.join('.'))).toEqual(
      expect.arrayContaining(['body.agent_id', 'body.source_number', 'body.phone_number', 'body.metadata']),
    );
    // Metadata goes with the call into every record, webhook and export: bounded at 16 KiB of JSON.
    const bulky = await call('POST', '/v1/call', {
      agent_id: agentId,
      source_number: FROM,
      phone_number: '+14155550123',
      metadata: { notes: 'x'.repeat(17 * 1024) },
    });
    expect(bulky.status).toBe(422);
    expect(bulky.body.detail as Issues).toEqual([
      expect.objectContaining({ loc: ['body', 'metadata'], msg: 'must serialize to at most 16 KiB of JSON' }),
    ]);
  });

  it('takes nothing from the query string: a client cannot choose the call id or a campaign', async () => {
    const chosen = '22222222-2222-4222-8222-222222222222';
    const res = await call('POST', `/v1/call?id=${chosen}&campaign_id=11111111-1111-4111-8111-111111111111`, {
      agent_id: agentId,
      source_number: FROM,
      phone_number: '+14155550125',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.data.id).not.toBe(chosen);
    expect(res.body.data.campaign_id).toBeNull();
  });

  it('answers 404 for a missing agent and for another account’s agent, dialing nobody', async () => {
    const before = (await call<PageOf<Call>>('GET', '/v1/calls')).body.data.total;
    expect(
      (
        await call('POST', '/v1/call', {
          agent_id: MISSING,
          source_number: FROM,
          phone_number: '+14155551234',
        })
      ).status,
    ).toBe(404);
    const foreign = await call(
      'POST',
      '/v1/call',
      { agent_id: agentId, source_number: FROM, phone_number: '+14155551234' },
      other.key,
    );
    expect(foreign.status).toBe(404);
    expect(foreign.body.detail).toBe('Agent not found');
    expect((await call<PageOf<Call>>('GET', '/v1/calls')).body.data.total).toBe(before);
  });

  it('lists calls newest first with paging and filters, only the caller’s', async () => {
    const a = await place('+14155552001');
    const b = await place('+14155550001');
    await waitForFinal(a.id);
    await waitForFinal(b.id);
    const page = await call<PageOf<Call>>('GET', '/v1/calls?page=1&page_size=1');
    expect(page.body.data).toMatchObject({ page: 1, page_size: 1, has_more: true });
    expect(page.body.data.items[0]?.id).toBe(b.id);
    const noAnswer = await call<PageOf<Call>>('GET', '/v1/calls?status=no_answer&page_size=100');
    expect(noAnswer.body.data.items.every((c) => c.status === 'no_answer')).toBe(true);
    expect(noAnswer.body.data.items.map((c) => c.id)).toContain(b.id);
    const byAgent = await call<PageOf<Call>>(`GET`, `/v1/calls?agent_id=${agentId}&page_size=100`);
    expect(byAgent.body.data.total).toBeGreaterThanOrEqual(2);
    const future = await call<PageOf<Call>>(
      'GET',
      `/v1/calls?from=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`,
    );
    expect(future.body.data.total).toBe(0);
    const past = await call<PageOf<Call>>(
      'GET',
      `/v1/calls?to=${encodeURIComponent(a.created_at)}&page_size=100`,
    );
    expect(past.body.data.items.map((c) => c.id)).not.toContain(a.id);
    expect((await call<PageOf<Call>>('GET', '/v1/calls', undefined, other.key)).body.data.total).toBe(0);
    expect((await call('GET', '/v1/calls?status=ringingish')).status).toBe(422);
    expect((await call('GET', '/v1/calls?from=yesterday')).status).toBe(422);
  });

  it('answers 404 for a missing call and another account’s call', async () => {
    const mine = await place('+14155553001');
    expect((await call('GET', `/v1/calls/${MISSING}`)).status).toBe(404);
    const foreign = await call('GET', `/v1/calls/${mine.id}`, undefined, other.key);
    expect(foreign.status).toBe(404);
    expect(foreign.body.detail).toBe('Call not found');
  });

  it('replays the first response for a repeated Idempotency-Key and dials nobody again', async () => {
    const body = { agent_id: agentId, source_number: FROM, phone_number: '+14155554001' };
    const headers = { 'idempotency-key': `seq-${mode}-${Date.now()}` };
    const first = await call('POST', '/v1/call', body, acme.key, headers);
    const second = await call('POST', '/v1/call', body, acme.key, headers);
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    const conflict = await call(
      'POST',
      '/v1/call',
      { ...body, phone_number: '+14155554002' },
      acme.key,
      headers,
    );
    expect(conflict.status).toBe(409);
    const calls = await call<PageOf<Call>>('GET', '/v1/calls?page_size=100');
    expect(calls.body.data.items.filter((c) => c.phone_number === '+14155554001')).toHaveLength(1);
    expect((await call('POST', '/v1/call', body, acme.key, { 'idempotency-key': 'short' })).status).toBe(422);
  });

  it('places one call for ten concurrent repeats of one Idempotency-Key', async () => {
    const body = { agent_id: agentId, source_number: FROM, phone_number: '+14155555001' };
    const headers = { 'idempotency-key': `conc-${mode}-${Date.now()}` };
    const responses = await Promise.all(
      Array.from({ length: 10 }, () => call('POST', '/v1/call', body, acme.key, headers)),
    );
    for (const res of responses) expect(res.status).toBe(201);
    expect(new Set(responses.map((r) => r.body.data.id)).size).toBe(1);
    const calls = await call<PageOf<Call>>('GET', '/v1/calls?page_size=100');
    expect(calls.body.data.items.filter((c) => c.phone_number === '+14155555001')).toHaveLength(1);
  });

  it('enforces calls:read and calls:write', async () => {
    const reader = await createKey(t, acme.accountId, ['calls:read', 'agents:read']);
    expect((await call('GET', '/v1/calls', undefined, reader)).status).toBe(200);
    const refused = await call(
      'POST',
      '/v1/call',
      { agent_id: agentId, source_number: FROM, phone_number: '+14155551234' },
      reader,
    );
    expect(refused.status).toBe(403);
    const writerOnly = await createKey(t, acme.accountId, ['calls:write']);
    expect((await call('GET', '/v1/calls', undefined, writerOnly)).status).toBe(403);
  });

  it('serves a finished call’s recording through an expiring signed link, without an API key', async () => {
    const done = await waitForFinal((await place('+14155558001')).id);
    const link = done.recording_url!;
    expect(link).toMatch(
      new RegExp(`^${t.url}/v1/recordings/${done.id}\\.wav\\?expires=\\d+&signature=[0-9a-f]{64}$`),
    );
    const res = await fetch(link);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('audio/wav');
    const audio = Buffer.from(await res.arrayBuffer());
    expect(audio.subarray(0, 4).toString()).toBe('RIFF');
    expect(audio.subarray(8, 12).toString()).toBe('WAVE');
    expect(audio.readUInt32LE(24)).toBe(8000);
    expect(audio.length).toBe(44 + 16_000 * done.duration_seconds);
    expect(res.headers.get('accept-ranges')).toBe('bytes');

    // A player seeks by asking for bytes from a point on: the same bytes, 206.
    const from = Math.floor(audio.length / 2);
    const part = await fetch(link, { headers: { range: `bytes=${from}-` } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes ${from}-${audio.length - 1}/${audio.length}`);
    expect(Buffer.from(await part.arrayBuffer()).equals(audio.subarray(from))).toBe(true);
    const slice = await fetch(link, { headers: { range: 'bytes=10-19' } });
    expect(slice.status).toBe(206);
    expect(Buffer.from(await slice.arrayBuffer()).equals(audio.subarray(10, 20))).toBe(true);
    const beyond = await fetch(link, { headers: { range: `bytes=${audio.length}-` } });
    expect(beyond.status).toBe(416);
    expect(beyond.headers.get('content-range')).toBe(`bytes */${audio.length}`);

    const url = new URL(link);
    const signature = url.searchParams.get('signature')!;
    url.searchParams.set('signature', `${signature.slice(0, -1)}${signature.endsWith('0') ? '1' : '0'}`);
    const altered = await api<ErrorEnvelope>(url.toString(), 'GET', '');
    expect(altered.status).toBe(403);
    expect(altered.body.detail).toBe('Invalid recording link');
    const later = new URL(link);
    later.searchParams.set('expires', String(Number(later.searchParams.get('expires')) + 3600));
    expect((await fetch(later)).status).toBe(403);
    const expired = signRecordingUrl({
      baseUrl: t.url,
      callId: done.id,
      secret: t.config.RECORDING_URL_SECRET!,
      ttlSeconds: -60,
    });
    const old = await api<ErrorEnvelope>(expired, 'GET', '');
    expect(old.status).toBe(403);
    expect(old.body.detail).toBe('This recording link has expired');
  });

  it('gives an unanswered call no recording link: an empty string', async () => {
    const done = await waitForFinal((await place('+14155550001')).id);
    expect(done.recording_url).toBe('');
    const page = await call<PageOf<Call>>('GET', '/v1/calls?page_size=100');
    const listed = page.body.data.items.find((c) => c.status === 'completed');
    expect(listed?.recording_url).toMatch(/\/v1\/recordings\//);
  });

  it('keeps a call’s history after its agent is deleted', async () => {
    const agent = await api<Envelope<{ id: string }>>(t.url, 'POST', '/v1/agents', {
      key: acme.key,
      body: { name: 'Temp', start_flow: 'Hello.', end_flow: 'Bye.' },
    });
    const placed = await call('POST', '/v1/call', {
      agent_id: agent.body.data.id,
      source_number: FROM,
      phone_number: '+14155556001',
    });
    const done = await waitForFinal(placed.body.data.id);
    expect((await api(t.url, 'DELETE', `/v1/agents/${agent.body.data.id}`, { key: acme.key })).status).toBe(
      204,
    );
    const after = await call('GET', `/v1/calls/${done.id}`);
    expect(after.status).toBe(200);
    expect(after.body.data).toMatchObject({
      status: done.status,
      agent: { id: agent.body.data.id, name: 'Temp' },
    });
  });
});
