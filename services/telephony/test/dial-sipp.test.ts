import { randomUUID } from 'node:crypto';
import { infraModes } from '@voice/shared/testing';
import { rejectScenario, ringUntilCancelScenario, type Sipp, startSipp } from '@voice/shared/testing/sip';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DialHarness, until } from './support/dial-harness';

// Dialing over the bus, against sipp as the far end: what the call service hears as progress.

const SPEECH = { start_flow: 'Hello, this is a test call.', end_flow: 'Goodbye.' };

describe.each(infraModes())('TELEPHONY.dial against sipp (%s)', (mode) => {
  const h = new DialHarness(mode);
  let sipp: Sipp | undefined;
  let other: Awaited<ReturnType<DialHarness['start']>>;
  let first: Awaited<ReturnType<DialHarness['start']>>;

  beforeAll(async () => {
    await h.setUp();
    first = await h.start();
    other = await h.start();
  }, 30_000);
  afterEach(async () => {
    await sipp?.stop();
    sipp = undefined;
  });
  afterAll(() => h.tearDown(), 30_000);

  it('a busy far end (486) ends the call busy with its SIP code; a re-sent dial dials nothing', async () => {
    sipp = await startSipp({ scenario: rejectScenario('486 Busy Here'), transport: 'udp' });
    const trunk = await h.trunk(sipp.uri);
    const callId = randomUUID();
    const reply = await h.dial(trunk, callId, SPEECH);
    expect(reply).toMatchObject({ call_id: callId, already: false });
    expect([first.parts.instance, other.parts.instance]).toContain(reply.instance);
    const again = await h.dial(trunk, callId, SPEECH);
    expect(again).toEqual({ call_id: callId, instance: reply.instance, already: true });

    const events = await h.ended(callId);
    expect(events.map((e) => [e.sequence, e.type, e.sip_code])).toEqual([
      [1, 'ringing', 180],
      [2, 'ended', 486],
    ]);
    expect(events[1]!.end).toMatchObject({
      status: 'busy',
      call_end_reason: 'busy',
      ended_by: 'carrier',
      answered_at: null,
      duration_seconds: 0,
      recorded: false,
      spoken: [],
    });
    expect(events[1]!.sip_reason).toBe('Busy Here');
    // sipp took exactly one call (-m 1) and its scenario ran to the end: one INVITE, ACKed.
    await sipp.ranToEnd();
    expect(await h.dial(trunk, callId, SPEECH)).toMatchObject({ already: true });
    const [row] = await h.sql`SELECT count(*)::int AS n FROM telephony.trunk_calls`;
    expect(row!.n).toBe(0);
  });

  it('a hang-up while it rings, sent to the replica that does not carry it, cancels the call', async () => {
    sipp = await startSipp({ scenario: ringUntilCancelScenario(), transport: 'udp' });
    const trunk = await h.trunk(sipp.uri);
    const callId = randomUUID();
    const reply = await h.dial(trunk, callId, SPEECH);
    await until(() => h.of(callId).some((e) => e.type === 'ringing'), 10_000, 'ringing');
    // Asked of the instance that does not carry the call: it forwards to the owner.
    const elsewhere = reply.instance === first.parts.instance ? other : first;
    expect(await elsewhere.parts.dialer.hangup(h.accountId, callId, h.ctx)).toEqual({
      call_id: callId,
      ended: true,
    });
    const events = await h.ended(callId);
    expect(events.map((e) => e.type)).toEqual(['ringing', 'ended']);
    expect(events[1]).toMatchObject({ sip_code: 487 });
    expect(events[1]!.end).toMatchObject({
      status: 'no_answer',
      call_end_reason: 'cancelled',
      ended_by: 'system',
    });
    await sipp.ranToEnd();
    // Over the bus, after the end: nothing left to hang up.
    expect(await h.hangup(callId)).toEqual({ call_id: callId, ended: false });
  });

  it('a far end that answers but sends no RTP ends the call failed, no media', async () => {
    const service = await h.start({ mediaTimeoutMs: 700 });
    sipp = await startSipp({ scenario: 'uas', transport: 'udp' });
    const trunk = await h.trunk(sipp.uri);
    const callId = randomUUID();
    const long = {
      start_flow: 'This sentence is long enough to outlast the media timeout of this test by far.',
      end_flow: 'Bye.',
    };
    // Only the instance with the short media timeout answers this dial.
    await first.stop();
    await other.stop();
    await h.dial(trunk, callId, long);
    const events = await h.ended(callId);
    expect(events.map((e) => e.type)).toEqual(['ringing', 'answered', 'ended']);
    expect(events[2]!.end).toMatchObject({
      status: 'failed',
      call_end_reason: 'carrier_error',
      detail: 'no media',
    });
    expect(events[2]!.end!.answered_at).not.toBeNull();
    expect(service.parts.dialer.liveCalls).toBe(0);
  });
});
