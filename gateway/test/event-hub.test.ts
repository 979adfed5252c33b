import { EVENTS, eventEnvelope, eventSubject, InProcessBus } from '@voice/shared';
import { sampleCall } from '@voice/shared/testing';
import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EventHub, type LiveEvents } from '../src/live/event-hub';

type LogLine = Record<string, unknown> & { msg: string };
const ACME = '33333333-3333-4333-8333-333333333333';
const GLOBEX = '44444444-4444-4444-8444-444444444444';

describe('EventHub', () => {
  const stops: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    await Promise.all(stops.splice(0).map((stop) => stop()));
  });

  function started() {
    const lines: LogLine[] = [];
    const log = pino(
      { level: 'debug' },
      { write: (line: string) => lines.push(JSON.parse(line) as LogLine) },
    );
    const bus = new InProcessBus({ requestTimeoutMs: 2_000, log });
    const hub = new EventHub(bus, log);
    hub.start();
    stops.push(
      () => hub.stop(),
      () => bus.close(),
    );
    return { bus, hub, lines };
  }

  /** A status event published under `subjectAccount`, its envelope claiming `envelopeAccount`. */
  function statusEvent(subjectAccount: string, envelopeAccount: string, callId: string, sequence: number) {
    const call = sampleCall({ id: callId, user_id: envelopeAccount });
    const subject = eventSubject(EVENTS.callStatusChanged, subjectAccount, callId);
    const envelope = eventEnvelope({
      subject,
      accountId: envelopeAccount,
      data: {
        call_id: callId,
        status: call.status,
        previous_status: 'in_progress',
        campaign_id: null,
        agent_id: call.agent_id,
        sequence,
        call,
      },
    });
    return { subject, envelope };
  }

  it("hands each event to its own account's listeners only, and drops one whose envelope names another account", async () => {
    const { bus, hub, lines } = started();
    const acme: LiveEvents['callStatus'][] = [];
    const globex: LiveEvents['callStatus'][] = [];
    hub.listen('callStatus', ACME, (e) => acme.push(e));
    hub.listen('callStatus', GLOBEX, (e) => globex.push(e));

    const mine = statusEvent(ACME, ACME, '55555555-5555-4555-8555-555555555555', 2);
    const theirs = statusEvent(GLOBEX, GLOBEX, '66666666-6666-4666-8666-666666666666', 3);
    // Published under Acme's subject but claiming Globex: delivered to neither.
    const forged = statusEvent(ACME, GLOBEX, '77777777-7777-4777-8777-777777777777', 4);
    for (const { subject, envelope } of [mine, theirs, forged]) await bus.publish(subject, envelope);

    // In-process publishes are handled in order: once the forged one is refused, all were seen.
    await vi.waitFor(
      () =>
        expect(lines).toContainEqual(
          expect.objectContaining({ msg: 'live event whose subject names another account: dropped' }),
        ),
      { timeout: 15_000, interval: 20 },
    );
    expect(acme.map((e) => e.entityId)).toEqual([mine.envelope.data.call_id]);
    expect(globex.map((e) => e.entityId)).toEqual([theirs.envelope.data.call_id]);
  });

  it("reads a call's end from its CALL_ENDED, with the final transition's sequence (or as the last, from an older writer)", async () => {
    const { bus, hub } = started();
    const seen: LiveEvents['callStatus'][] = [];
    hub.listen('callStatus', ACME, (e) => seen.push(e));
    const callId = '88888888-8888-4888-8888-888888888888';
    const older = '99999999-9999-4999-8999-999999999999';
    const live = statusEvent(ACME, ACME, callId, 2);
    const ended = (id: string, sequence: number | undefined) => {
      const call = sampleCall({ id, user_id: ACME, status: 'completed' });
      const subject = eventSubject(EVENTS.callEnded, ACME, id);
      const data = sequence === undefined ? { call } : { call, sequence };
      return { subject, envelope: eventEnvelope({ subject, accountId: ACME, id, data }) };
    };
    for (const { subject, envelope } of [live, ended(callId, 3), ended(older, undefined)])
      await bus.publish(subject, envelope);
    await vi.waitFor(() => expect(seen).toHaveLength(3), { timeout: 15_000, interval: 20 });
    expect(seen.map((e) => [e.entityId, e.sequence, e.call.status])).toEqual([
      [callId, 2, live.envelope.data.status],
      [callId, 3, 'completed'],
      [older, Number.MAX_SAFE_INTEGER, 'completed'],
    ]);
  });
});
