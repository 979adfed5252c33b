import type { Call, SipTrunk } from '@voice/shared';
import {
  type Baresip,
  bestCorrelation,
  decimate,
  envelope,
  parsePcmWav,
  readPcmWav,
  trimSilence,
} from '@voice/shared/testing/sip';
import postgres from 'postgres';
import { expect } from 'vitest';
import { synthesize } from '../../../services/telephony/src/media';
import { api, type Envelope } from '../support/http';

/** Helpers of the end-to-end tests of real calls: trunks, calls and recordings through the public API. */

/** The agent's lines: long enough for an energy envelope to be told apart from anything else. */
export const FLOWS = {
  start_flow: 'Hello, this is Riley calling about your appointment tomorrow morning at nine.',
  end_flow: 'Thank you for your time, goodbye.',
};
/** What baresip, as the person called, says when it answers. */
export const CALLEE_SAYS = 'Yes, hello, I can hear you perfectly well.';

/**
 * The telephony settings of a test platform: SIP and RTP on loopback, RTP ports of this test
 * process's own (away from the telephony service's own tests, 30 000 and up).
 */
export function telephonyConfig(): { SIP_BIND_ADDRESS: string; RTP_PORT_MIN: number; RTP_PORT_MAX: number } {
  const min = 20_000 + (process.pid % 200) * 50;
  return { SIP_BIND_ADDRESS: '127.0.0.1', RTP_PORT_MIN: min, RTP_PORT_MAX: min + 49 };
}

export async function createTrunk(
  url: string,
  key: string,
  body: {
    uri: string;
    numbers: string[];
    username?: string;
    password?: string;
    ring_timeout_seconds?: number;
    max_concurrent_calls?: number;
  },
): Promise<SipTrunk> {
  const res = await api<Envelope<SipTrunk>>(url, 'POST', '/v1/sip-trunks', {
    key,
    body: { name: `Trunk ${body.numbers.join(' ')}`, ...body },
  });
  expect(res.status, res.text).toBe(201);
  return res.body.data;
}

export async function createFlowsAgent(url: string, key: string, webhookUrl: string): Promise<string> {
  const res = await api<Envelope<{ id: string }>>(url, 'POST', '/v1/agents', {
    key,
    body: {
      name: 'Riley',
      ...FLOWS,
      webhook_config: {
        url: webhookUrl,
        events: ['CALL_ENDED'],
        secret: 'real-calls-secret-0123456789abcdef',
      },
    },
  });
  expect(res.status, res.text).toBe(201);
  return res.body.data.id;
}

/** The statuses a call went through, in order, as the call service stored them. */
export async function statusesOf(databaseUrl: string, callId: string): Promise<string[]> {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    const rows = await sql<{ status: string }[]>`
      SELECT status FROM call.call_transitions WHERE call_id = ${callId} ORDER BY sequence`;
    return rows.map((r) => r.status);
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/** Each CALL_ENDED the receiver got for `callId`. */
export function endedWebhooksFor(received: { body: Buffer }[], callId: string): { data: Call }[] {
  return received
    .map((r) => JSON.parse(r.body.toString('utf8')) as { event: string; data: { session_id: string } })
    .filter((e) => e.event === 'CALL_ENDED' && e.data.session_id === callId) as unknown as { data: Call }[];
}

/**
 * Checks what a completed call over a trunk says of itself; `pressed`: the keys the callee pressed,
 * each a user line of the transcript among the agent's, in time order.
 */
export function expectCompletedOverTrunk(call: Call, trunkId: string, pressed = ''): void {
  expect(call.status, JSON.stringify(call)).toBe('completed');
  // The reason phrase is the far end's own (baresip says "Answering", sipp "OK").
  expect(call.telephony).toEqual({
    carrier: 'sip',
    trunk_id: trunkId,
    sip_code: 200,
    sip_reason: expect.stringMatching(/\S/),
  });
  expect(call.duration_seconds).toBeGreaterThan(0);
  const said = (role: string) => call.transcript.filter((l) => l.role === role).map((l) => l.content);
  expect(said('agent')).toEqual([FLOWS.start_flow, FLOWS.end_flow]);
  expect(said('user')).toEqual([...pressed].map((digit) => `[DTMF] ${digit}`));
  // hh:mm:ss of one call: in order as strings (a call across midnight would not be).
  const times = call.transcript.map((l) => l.timestamp);
  expect(times).toEqual([...times].sort());
  expect(call.recording_url).toMatch(/^http/);
}

/** The start flow as the telephony service speaks it for an agent in the default language, `en`. */
const agentSpeech = () => synthesize(FLOWS.start_flow, { voice: 'en' });

/** The 20 ms energy envelope of 8 kHz audio. */
const env = (pcm: Int16Array) => envelope(pcm, 160);

/**
 * The recording behind a call's link, read from `gateways` (each serves it from the recording
 * store): the whole WAV from the first, byte ranges (206) from every one, equal to the same bytes.
 * Then its content: stereo 8 kHz, the agent's start flow on the left, what baresip played on the right.
 */
export async function expectRecordingOfCall(call: Call, gateways: string[], baresip: Baresip): Promise<void> {
  const link = new URL(call.recording_url);
  const whole = await fetch(new URL(`${link.pathname}${link.search}`, gateways[0]));
  expect(whole.status).toBe(200);
  expect(whole.headers.get('content-type')).toBe('audio/wav');
  const bytes = Buffer.from(await whole.arrayBuffer());
  for (const gateway of gateways) {
    for (const [from, to] of [
      [0, 43],
      [1_000, 40_999],
      [bytes.length - 320, bytes.length - 1],
    ] as const) {
      const part = await fetch(new URL(`${link.pathname}${link.search}`, gateway), {
        headers: { range: `bytes=${from}-${to}` },
      });
      expect(part.status, `${gateway} bytes=${from}-${to}`).toBe(206);
      expect(part.headers.get('content-range')).toBe(`bytes ${from}-${to}/${bytes.length}`);
      expect(Buffer.from(await part.arrayBuffer()).equals(bytes.subarray(from, to + 1))).toBe(true);
    }
  }

  const wav = parsePcmWav(bytes);
  expect(wav.rate).toBe(8000);
  expect(wav.channels).toHaveLength(2);
  const [left, right] = wav.channels as [Int16Array, Int16Array];
  // The record bills whole seconds; the recording runs from the answer to the hang-up.
  expect(Math.abs(left.length / 8000 - call.duration_seconds)).toBeLessThan(1.5);
  const agentSaid = await agentSpeech();
  // Not 1: the 20 ms clock skips a slot when the event loop stalls, shifting what follows.
  expect(
    bestCorrelation(env(agentSaid), env(left)).r,
    'the left channel holds the start flow',
  ).toBeGreaterThan(0.7);
  const played = trimSilence((await readPcmWav(baresip.played)).channels[0]!);
  const calleeMatch = bestCorrelation(env(played), env(right));
  expect(calleeMatch.r, 'the right channel holds what baresip played').toBeGreaterThan(0.7);
  expect(bestCorrelation(env(played), env(left)).r, 'baresip is not in the agent’s channel').toBeLessThan(
    calleeMatch.r,
  );
}

/** baresip's own recording of what it heard holds the agent's start flow. */
export async function expectBaresipHeardAgent(baresip: Baresip, call: Call): Promise<void> {
  const deadline = Date.now() + 5_000;
  let file = await baresip.heard();
  while (!file && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    file = await baresip.heard();
  }
  expect(file, 'baresip recorded what it heard').toBeDefined();
  const heard = await readPcmWav(file!);
  const pcm = heard.channels[0]!;
  expect(pcm.length / heard.rate).toBeLessThanOrEqual(call.duration_seconds + 1);
  const at8k = heard.rate === 8000 ? pcm : decimate(pcm, heard.rate / 8000);
  const agentSaid = await agentSpeech();
  expect(bestCorrelation(env(agentSaid), env(at8k)).r, 'baresip heard the agent').toBeGreaterThan(0.7);
}
