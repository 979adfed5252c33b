import { describe, expect, it } from 'vitest';
import { PortPoolExhaustedError, RtpPortPool } from '../src/media';
import { rawSocket, testPool } from './media-support';

describe('RTP port pool', () => {
  it('hands out even RTP ports with RTCP on the next one, refuses when exhausted, reuses after release', async () => {
    const pool = testPool(2);
    const a = await pool.acquire();
    const b = await pool.acquire();
    try {
      for (const pair of [a, b]) {
        expect(pair.rtpPort % 2).toBe(0);
        expect(pair.rtcpPort).toBe(pair.rtpPort + 1);
        expect(pair.rtp.address().port).toBe(pair.rtpPort);
        expect(pair.rtcp.address().port).toBe(pair.rtcpPort);
      }
      expect(a.rtpPort).not.toBe(b.rtpPort);
      await expect(pool.acquire()).rejects.toThrow(PortPoolExhaustedError);
      await expect(pool.acquire()).rejects.toThrow(/no free RTP port pair/);
      a.release();
      a.release(); // twice is harmless
      const c = await pool.acquire();
      expect(c.rtpPort).toBe(a.rtpPort);
      c.release();
    } finally {
      a.release();
      b.release();
    }
    expect(pool.inUse).toBe(0);
  });

  it('skips a port another process already holds', async () => {
    const holder = await rawSocket();
    // A one-pair range whose RTCP port is taken by someone else: nothing to hand out.
    const held = holder.address().port;
    const rtp = held % 2 === 0 ? held : held - 1;
    try {
      const pool = new RtpPortPool({ min: rtp, max: rtp + 1, host: '127.0.0.1' });
      await expect(pool.acquire()).rejects.toThrow(PortPoolExhaustedError);
      expect(pool.inUse).toBe(0);
    } finally {
      holder.close();
    }
  });

  it('refuses a range without a single even/odd pair', () => {
    expect(() => new RtpPortPool({ min: 40_001, max: 40_002, host: '127.0.0.1' })).toThrow(RangeError);
    expect(() => new RtpPortPool({ min: 40_010, max: 40_000, host: '127.0.0.1' })).toThrow(RangeError);
  });
});
