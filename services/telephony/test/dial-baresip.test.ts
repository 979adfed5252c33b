import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { infraModes } from '@voice/shared/testing';
import {
  type Baresip,
  bestCorrelation,
  decimate,
  envelope,
  readPcmWav,
  startBaresip,
  trimSilence,
} from '@voice/shared/testing/sip';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { synthesize } from '../src/media';
import { DialHarness, until } from './support/dial-harness';

// A real call over the bus to baresip as a person: it answers, speaks, listens and records; the
// agent speaks its flows and hangs up. Both recordings must hold what the other side said, and
// the keys the person pressed reach the call's end.

const SPEECH = {
  start_flow: 'Hello, this is the agent calling about your appointment tomorrow morning.',
  end_flow: 'Thank you for your time, goodbye.',
};
const CALLEE_SAYS = 'Yes, hello, I can hear you.';
/** Keys the person presses during the call. */
const PRESSED = '42#';

/** The 20 ms energy envelope of a signal at `rate`. */
const env = (pcm: Int16Array, rate = 8000) => envelope(pcm, rate / 50);

describe.each(infraModes())('a call to baresip (%s)', (mode) => {
  const h = new DialHarness(mode);
  let baresip: Baresip;

  beforeAll(async () => {
    await h.setUp();
    await h.start();
    baresip = await startBaresip(CALLEE_SAYS);
  }, 30_000);
  afterAll(async () => {
    await baresip?.stop();
    await h.tearDown();
  }, 30_000);

  it('rings, is answered, speaks both flows, hears the keys pressed, hangs up, and records both sides', async () => {
    const trunk = await h.trunk(baresip.uri);
    const callId = randomUUID();
    await h.dial(trunk, callId, SPEECH);
    // The person presses keys while the agent speaks: baresip sends them as RFC 4733 events.
    await until(() => h.of(callId).some((e) => e.type === 'answered'), 15_000, 'the answer');
    baresip.press(PRESSED);
    const events = await h.ended(callId, 40_000);
    expect(events.map((e) => [e.sequence, e.type])).toEqual([
      [1, 'ringing'],
      [2, 'answered'],
      [3, 'ended'],
    ]);
    const end = events[2]!.end!;
    expect(end).toMatchObject({
      status: 'completed',
      call_end_reason: 'agent_hung_up',
      ended_by: 'agent',
      recorded: true,
      detail: null,
    });
    expect(events[1]!.sip_code).toBe(200);
    expect(end.spoken.map((s) => s.text)).toEqual([SPEECH.start_flow, SPEECH.end_flow]);
    expect(end.dtmf.map((k) => k.digit).join(''), 'the keys pressed, once each').toBe(PRESSED);
    const pressedAt = end.dtmf.map((k) => Date.parse(k.at));
    expect(pressedAt).toEqual([...pressedAt].sort((a, b) => a - b));
    expect(pressedAt[0]!).toBeGreaterThanOrEqual(Date.parse(end.answered_at!));
    expect(pressedAt.at(-1)!).toBeLessThanOrEqual(Date.parse(end.ended_at));
    const agentSaid = await synthesize(SPEECH.start_flow, { voice: 'en-us' });
    expect(end.duration_seconds).toBeGreaterThan(agentSaid.length / 8000);

    // Our recording: stereo 8 kHz, the agent left, baresip right.
    const ours = await readPcmWav(path.join(h.recordings, 'recordings', `${callId}.wav`));
    expect(ours.rate).toBe(8000);
    expect(ours.channels).toHaveLength(2);
    const [left, right] = ours.channels as [Int16Array, Int16Array];
    expect(left.length / 8000).toBeCloseTo(end.duration_seconds, 0);
    const agentMatch = bestCorrelation(env(agentSaid), env(left));
    // Not 1: the 20 ms clock skips a slot when the event loop stalls, shifting what follows.
    expect(agentMatch.r, 'the left channel holds the start flow').toBeGreaterThan(0.7);
    const played = trimSilence((await readPcmWav(baresip.played)).channels[0]!);
    const calleeMatch = bestCorrelation(env(played), env(right));
    expect(calleeMatch.r, 'the right channel holds what baresip played').toBeGreaterThan(0.7);
    // Baresip's own speech is not in the agent's channel.
    expect(bestCorrelation(env(played), env(left)).r).toBeLessThan(calleeMatch.r);

    // Baresip's recording of what it heard holds the agent's speech.
    await until(async () => (await baresip.heard()) !== undefined, 5_000, 'baresip recording');
    const heard = await readPcmWav((await baresip.heard())!);
    const heardPcm = heard.channels[0]!;
    expect(heardPcm.length / heard.rate).toBeLessThanOrEqual(end.duration_seconds + 1);
    const resampled = heard.rate === 8000 ? heardPcm : decimate(heardPcm, heard.rate / 8000);
    expect(bestCorrelation(env(agentSaid), env(resampled)).r, 'baresip heard the agent').toBeGreaterThan(0.7);
  });
});
