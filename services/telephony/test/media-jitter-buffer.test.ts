import { describe, expect, it } from 'vitest';
import { JitterBuffer } from '../src/media/jitter-buffer';

function packet(seq: number) {
  return { sequenceNumber: seq & 0xffff, timestamp: seq * 160, kind: 'audio' as const, payload: seq };
}

function drain(jb: JitterBuffer<number>, now: number): (number | string)[] {
  const out: (number | string)[] = [];
  for (let popped = jb.pop(now); popped; popped = jb.pop(now)) {
    out.push('lost' in popped ? `lost ${popped.lost}` : popped.packet.payload);
  }
  return out;
}

describe('jitter buffer', () => {
  it('plays reordered packets in sequence and refuses duplicates', () => {
    const jb = new JitterBuffer<number>({ targetDelayMs: 60 });
    for (const seq of [3, 1, 2, 2, 5, 4, 1]) jb.push(packet(seq), 0);
    expect(jb.counters.duplicate).toBe(2);
    expect(drain(jb, 100)).toEqual([1, 2, 3, 4, 5]);
  });

  it('waits for its target delay before starting, then refuses packets that come too late', () => {
    const jb = new JitterBuffer<number>({ targetDelayMs: 60 });
    jb.push(packet(10), 0);
    expect(jb.pop(30)).toBeUndefined();
    expect(drain(jb, 60)).toEqual([10]);
    expect(jb.push(packet(9), 70)).toBe('late');
    expect(jb.push(packet(11), 70)).toBe('queued');
  });

  it('reports a gap once a later packet has waited long enough, and keeps order across wrap-around', () => {
    const jb = new JitterBuffer<number>({ targetDelayMs: 40 });
    for (const seq of [65534, 65535]) jb.push(packet(seq), 0);
    expect(drain(jb, 50)).toEqual([65534, 65535]);
    jb.push(packet(65539), 60); // 0, 1 and 2 (after the wrap) are missing
    expect(jb.pop(70)).toBeUndefined();
    expect(drain(jb, 100)).toEqual(['lost 3', 65539]);
    expect(jb.counters.lost).toBe(3);
  });

  it('stays within its depth by dropping the oldest packet', () => {
    const jb = new JitterBuffer<number>({ targetDelayMs: 10_000, maxPackets: 5 });
    for (let seq = 100; seq < 110; seq++) jb.push(packet(seq), 0);
    expect(jb.depth).toBe(5);
    expect(jb.counters.overflow).toBe(5);
    expect(drain(jb, 20_000)).toEqual([105, 106, 107, 108, 109]);
  });
});
