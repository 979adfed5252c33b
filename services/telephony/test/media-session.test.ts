import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { bestCorrelation, envelope } from '@voice/shared/testing/sip';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import wavefile from 'wavefile';
import { type RtcpReport, type RtpPortPool, RtpSession, synthesize } from '../src/media';
import { answerSdp, testPool } from './media-support';

let dir: string;
let pool: RtpPortPool;
const sessions: RtpSession[] = [];

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'media-session-'));
  pool = testPool();
});
afterEach(async () => {
  await Promise.all(sessions.splice(0).map((s) => s.close()));
  await rm(dir, { recursive: true, force: true });
});

async function open(options: Partial<Parameters<typeof RtpSession.open>[0]> = {}): Promise<RtpSession> {
  const session = await RtpSession.open({ pool, localAddress: '127.0.0.1', ...options });
  sessions.push(session);
  return session;
}

/** Two sessions wired to each other, as caller and callee of one call. */
async function pair(options: Partial<Parameters<typeof RtpSession.open>[0]> = {}) {
  const agent = await open({ ...options, recordingPath: path.join(dir, 'agent.wav') });
  const callee = await open({ ...options, recordingPath: path.join(dir, 'callee.wav') });
  agent.setRemoteDescription(callee.localDescription());
  callee.setRemoteDescription(agent.localDescription());
  agent.start();
  callee.start();
  agent.markAnswered();
  callee.markAnswered();
  return { agent, callee };
}

async function readStereo(
  file: string,
): Promise<{ left: Int16Array; right: Int16Array; fmt: Record<string, unknown> }> {
  const wav = new wavefile.WaveFile(await readFile(file));
  const [left, right] = wav.getSamples(false, Int16Array) as unknown as [Int16Array, Int16Array];
  return { left, right, fmt: wav.fmt as Record<string, unknown> };
}

describe('RTP session between two endpoints on loopback', () => {
  it('carries speech from one side to the other and records both sides, time-aligned', async () => {
    const { agent, callee } = await pair({ mediaTimeoutMs: 2000 });
    const timeouts: string[] = [];
    agent.on('media-timeout', () => timeouts.push('agent'));
    callee.on('media-timeout', () => timeouts.push('callee'));
    const speech = await synthesize('Hello, this is a test call from the voice platform. Goodbye.');
    expect(await agent.play(speech)).toBe(true);
    // Let the last packets cross the jitter buffer (and at least one media-timeout period pass).
    await vi.waitFor(
      () => expect(callee.stats().packetsReceived).toBeGreaterThan(speech.length / 160 + 100),
      {
        timeout: 20_000,
        interval: 50,
      },
    );
    await Promise.all([agent.close(), callee.close()]);
    expect(timeouts).toEqual([]);

    const heard = await readStereo(path.join(dir, 'callee.wav'));
    expect(heard.fmt).toMatchObject({ numChannels: 2, sampleRate: 8000, bitsPerSample: 16 });
    const spoken = envelope(speech);
    const onRight = bestCorrelation(spoken, envelope(heard.right));
    expect(onRight.r).toBeGreaterThan(0.8);
    expect(Math.max(...envelope(heard.left))).toBeLessThan(50); // the callee said nothing

    const sent = await readStereo(path.join(dir, 'agent.wav'));
    // Not 1.0: ticks a stalled event loop skipped on a busy machine leave short gaps in what was sent.
    const onLeft = bestCorrelation(spoken, envelope(sent.left));
    expect(onLeft.r).toBeGreaterThan(0.8);
    expect(Math.max(...envelope(sent.right))).toBeLessThan(50);
    // Both recordings run on the call's clock: about as long as each other.
    expect(Math.abs(sent.left.length - heard.left.length)).toBeLessThan(8000 * 2);
  });

  it('sends DTMF digits that the other side reports once each', async () => {
    const { agent, callee } = await pair();
    const digits: string[] = [];
    callee.on('dtmf', (d) => digits.push(d));
    await agent.sendDtmf('19*#A');
    await vi.waitFor(() => expect(digits.join('')).toBe('19*#A'), { timeout: 5000, interval: 20 });
    // The end packets are sent three times: no digit may be announced twice.
    await vi.waitFor(() =>
      expect(callee.stats().packetsReceived).toBeGreaterThan(agent.stats().packetsSent - 60),
    );
    expect(digits).toEqual(['1', '9', '*', '#', 'A']);
    await expect(agent.sendDtmf('12x')).rejects.toThrow(RangeError);
  });

  it('exchanges RTCP sender reports with packet counts, loss, jitter and a round trip', async () => {
    const { agent, callee } = await pair({ rtcpIntervalMs: 150 });
    const reports: RtcpReport[] = [];
    callee.on('rtcp', (r) => reports.push(r));
    await vi.waitFor(
      () => {
        const withBlock = reports.find((r) => r.type === 'sr' && r.reports.some((b) => b.lastSr !== 0));
        expect(withBlock).toBeDefined();
      },
      { timeout: 10_000, interval: 50 },
    );
    const sr = reports.find((r) => r.type === 'sr')!;
    expect(sr.sender!.packetCount).toBeGreaterThan(0);
    expect(sr.sender!.octetCount).toBe(sr.sender!.packetCount * 160);
    const about = reports.flatMap((r) => r.reports).at(-1)!;
    expect(about.totalLost).toBe(0);
    expect(about.jitter).toBeGreaterThanOrEqual(0);
    await vi.waitFor(() => expect(agent.stats().roundTripMs).toBeDefined(), { timeout: 10_000 });
    expect(agent.stats().roundTripMs!).toBeLessThan(1000);
    expect(callee.stats().lastRemoteReport?.ssrc).toBe(sr.ssrc);
  });
});

describe('RTP session media timeout', () => {
  it('fires once when no RTP arrives after answer', async () => {
    const session = await open({ mediaTimeoutMs: 300 });
    session.setRemoteDescription(answerSdp(9)); // the discard port: nothing ever answers
    session.start();
    session.markAnswered();
    let fired = 0;
    session.on('media-timeout', () => fired++);
    await once(session, 'media-timeout', { signal: AbortSignal.timeout(10_000) });
    const sentAtTimeout = session.stats().packetsSent;
    expect(sentAtTimeout).toBeGreaterThan(0);
    // Another timeout period later (measured in packets sent on the 20 ms clock), still once.
    await vi.waitFor(() => expect(session.stats().packetsSent).toBeGreaterThan(sentAtTimeout + 30), {
      timeout: 10_000,
    });
    expect(fired).toBe(1);
  });
});
