import { performance } from 'node:perf_hooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RtpSession } from '../src/media';
import { testPool } from './media-support';

// The bench's measurement hook: each packet one session sends is seen leaving, with its sequence
// number and the monotonic time, and seen arriving at the other session.

const sessions: RtpSession[] = [];
afterEach(async () => {
  await Promise.all(sessions.splice(0).map((s) => s.close()));
});

describe('RtpProbe', () => {
  it('sees every packet sent and received, by sequence number, on the monotonic clock', async () => {
    const pool = testPool(4);
    const sent = new Map<number, number>();
    const received = new Map<number, number>();
    const startedAt = performance.now();
    const caller = await RtpSession.open({
      pool,
      localAddress: '127.0.0.1',
      probe: { sent: (at, seq) => sent.set(seq, at), received: () => {} },
    });
    const callee = await RtpSession.open({
      pool,
      localAddress: '127.0.0.1',
      probe: { sent: () => {}, received: (at, seq) => received.set(seq, at) },
    });
    sessions.push(caller, callee);
    caller.setRemoteDescription(callee.localDescription());
    callee.setRemoteDescription(caller.localDescription());
    caller.start();
    callee.start();
    await vi.waitFor(() => expect(received.size).toBeGreaterThanOrEqual(10), { timeout: 10_000 });
    await caller.close();
    expect(sent.size).toBe(caller.stats().packetsSent);
    for (const [seq, at] of received) {
      const leftAt = sent.get(seq);
      expect(leftAt).toBeDefined();
      expect(at).toBeGreaterThanOrEqual(leftAt!);
      expect(leftAt!).toBeGreaterThanOrEqual(startedAt);
    }
  });
});
