import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decodeExportChunk, EncodedJson, encodeExportChunk } from '../src/bus';
import type { ExportChunk } from '../src/contracts';

const bytes = Buffer.concat([Buffer.from('a,"b"\r\n{"x":"\\u00e9"}\n'), randomBytes(70_001)]);
const chunk: ExportChunk = {
  data: bytes.toString('base64'),
  links: [
    [0, randomUUID()],
    [17, randomUUID()],
  ],
  rows: 2,
  next: { created_at: '2026-11-26T22:00:00.123456Z', id: randomUUID() },
};

describe('export chunk on the bus', () => {
  it('is JSON of the chunk, and reads back with its bytes decoded', () => {
    const text = encodeExportChunk(chunk).text;
    expect(JSON.parse(text)).toEqual(chunk);
    const read = decodeExportChunk(text);
    expect(read.data.equals(bytes)).toBe(true);
    expect({ ...read, data: null }).toEqual({ ...chunk, data: null });
  });

  it('reads the last chunk and an empty one', () => {
    const last = { ...chunk, next: null, links: [], data: '' };
    const read = decodeExportChunk(encodeExportChunk(last).text);
    expect(read).toEqual({ ...last, data: Buffer.alloc(0) });
  });

  it('is an EncodedJson serveRpc sends as it is', () => {
    expect(encodeExportChunk(chunk)).toBeInstanceOf(EncodedJson);
  });

  it('refuses a chunk outside its contract', () => {
    expect(() => encodeExportChunk({ ...chunk, rows: -1 })).toThrow(/does not match its contract/);
    expect(() => encodeExportChunk({ ...chunk, links: [[0, 'not-a-call']] })).toThrow(/contract/);
  });

  it('refuses text it did not write', () => {
    expect(() => decodeExportChunk('')).toThrow(/Malformed export chunk/);
    expect(() => decodeExportChunk(JSON.stringify(chunk).replace('"data"', '"bytes"'))).toThrow(/Malformed/);
  });
});
