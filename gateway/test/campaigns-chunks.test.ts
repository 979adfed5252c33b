import { describe, expect, it } from 'vitest';
import { CONTACT_CHUNK_BYTES, contactChunks } from '../src/clients/campaigns';

describe('contactChunks', () => {
  it('splits in order, every chunk within the UTF-8 byte bound, offsets continuous', () => {
    const contacts = Array.from({ length: 10_000 }, (_, i) => ({
      phone: `+1415${String(1_000_000 + i)}`,
      note: (i % 3 === 0 ? 'é' : 'x').repeat(i % 200),
    }));
    const chunks = contactChunks(contacts);
    expect(chunks.length).toBeGreaterThan(1);
    let offset = 0;
    for (const chunk of chunks) {
      expect(chunk.offset).toBe(offset);
      expect(Buffer.byteLength(JSON.stringify(chunk.contacts))).toBeLessThanOrEqual(CONTACT_CHUNK_BYTES);
      offset += chunk.contacts.length;
    }
    expect(chunks.flatMap((c) => c.contacts)).toEqual(contacts);
  });

  it('keeps a contact larger than the bound whole, in a chunk of its own', () => {
    const big = { phone: '+14155550123', note: 'y'.repeat(300) };
    const chunks = contactChunks([{ phone: '+14155550100' }, big, { phone: '+14155550101' }], 100);
    expect(chunks.map((c) => [c.offset, c.contacts.length])).toEqual([
      [0, 1],
      [1, 1],
      [2, 1],
    ]);
  });
});
