import { randomBytes, randomUUID } from 'node:crypto';
import { PassThrough, Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RECORDING_CONTENT_TYPE, RecordingIdError, RecordingRangeError } from '../src/recordings/index';
import {
  openStoreUnderTest,
  randomFile,
  readAll,
  type StoreUnderTest,
  storeKinds,
} from './support/recording-stores';
import { rejectionOf } from './support/rejection';

/** Several MB: many chunks in the object store, several reads' worth for a file stream. */
const LARGE = 5 * 1024 * 1024 + 12_345;

describe.each(storeKinds())('RecordingStore (%s)', (kind) => {
  let t: StoreUnderTest;
  let source: Awaited<ReturnType<typeof randomFile>>;

  beforeAll(async () => {
    t = await openStoreUnderTest(kind);
    source = await randomFile(LARGE);
  });
  afterAll(async () => {
    await t?.dispose();
    await source?.remove();
  });

  it('keeps a large file put from a path and reads it back whole and by ranges', async () => {
    const id = randomUUID();
    expect(await t.store.put(id, source.path)).toEqual({ size: LARGE, contentType: RECORDING_CONTENT_TYPE });
    expect(await t.store.stat(id)).toEqual({ size: LARGE, contentType: RECORDING_CONTENT_TYPE });
    expect((await readAll(await t.store.read(id))).equals(source.bytes)).toBe(true);
    const chunk = 128 * 1024;
    const ranges = [
      { start: 0, end: 0 },
      { start: 0, end: 43 },
      { start: chunk - 1, end: chunk },
      { start: 3 * chunk + 17, end: 7 * chunk + 5 },
      { start: LARGE - 100, end: LARGE - 1 },
      { start: LARGE - 1, end: LARGE - 1 },
      { start: 12, end: LARGE - 1 },
    ];
    for (const range of ranges) {
      const got = await readAll(await t.store.read(id, range));
      expect(got.equals(source.bytes.subarray(range.start, range.end + 1)), JSON.stringify(range)).toBe(true);
    }
  });

  it('refuses a range outside the file', async () => {
    const id = randomUUID();
    await t.store.put(id, Readable.from([Buffer.from('RIFF0000WAVE')]));
    await rejectionOf(t.store.read(id, { start: 12, end: 12 }), RecordingRangeError);
    await rejectionOf(t.store.read(id, { start: 5, end: 4 + 100 }), RecordingRangeError);
    await rejectionOf(t.store.read(id, { start: -1, end: 3 }), RecordingRangeError);
    expect((await readAll(await t.store.read(id, { start: 8, end: 11 }))).toString()).toBe('WAVE');
  });

  it('keeps a recording put from a stream, and replaces it with a later put', async () => {
    const id = randomUUID();
    const first = randomBytes(300_000);
    await t.store.put(id, Readable.from([first.subarray(0, 1000), first.subarray(1000)]));
    expect((await readAll(await t.store.read(id))).equals(first)).toBe(true);
    const second = randomBytes(200_000);
    expect((await t.store.put(id, Readable.from([second]))).size).toBe(second.length);
    expect((await readAll(await t.store.read(id))).equals(second)).toBe(true);
  });

  it('shows nothing of a put until it has finished', async () => {
    const id = randomUUID();
    const old = randomBytes(50_000);
    await t.store.put(id, Readable.from([old]));
    const before = await t.leftovers();
    const incoming = new PassThrough();
    const fresh = randomBytes(700_000);
    const putting = t.store.put(id, incoming);
    incoming.write(fresh.subarray(0, 400_000));
    // Well into the put (a temporary file, or chunks, are in the store), readers still get the old one.
    await expect.poll(() => t.leftovers()).toBeGreaterThan(before);
    expect(await t.store.stat(id)).toEqual({ size: old.length, contentType: RECORDING_CONTENT_TYPE });
    expect((await readAll(await t.store.read(id))).equals(old)).toBe(true);
    incoming.end(fresh.subarray(400_000));
    await putting;
    expect((await readAll(await t.store.read(id))).equals(fresh)).toBe(true);
  });

  it('leaves neither the recording nor its parts behind when the source fails half way', async () => {
    const id = randomUUID();
    const before = await t.leftovers();
    const failing = new PassThrough();
    const putting = t.store.put(id, failing);
    failing.write(randomBytes(400_000));
    setImmediate(() => failing.destroy(new Error('recorder died')));
    await rejectionOf(putting, Error);
    expect(await t.store.stat(id)).toBeUndefined();
    expect(await t.store.read(id)).toBeUndefined();
    await expect.poll(() => t.leftovers()).toBe(before);
  });

  it('of two puts of one call at once, keeps one whole and nothing of the other', async () => {
    const id = randomUUID();
    const before = await t.leftovers();
    const a = randomBytes(900_000);
    const b = randomBytes(600_000);
    const sources = [new PassThrough(), new PassThrough()];
    const puts = Promise.allSettled(sources.map((source) => t.store.put(id, source)));
    sources[0]!.write(a.subarray(0, 300_000));
    sources[1]!.write(b.subarray(0, 300_000));
    // Both are under way (two temporary files, or two chunks of each) before either ends.
    await expect.poll(() => t.leftovers()).toBeGreaterThanOrEqual(before + (kind === 'file' ? 2 : 4));
    sources[0]!.end(a.subarray(300_000));
    sources[1]!.end(b.subarray(300_000));
    const results = await puts;
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled']);
    const kept = await readAll(await t.store.read(id));
    expect(kept.equals(a) || kept.equals(b)).toBe(true);
    expect((await t.store.stat(id))?.size).toBe(kept.length);
    // One recording's worth is left: a file, or its chunks and its description.
    const chunks = Math.ceil(kept.length / (128 * 1024));
    await expect.poll(() => t.leftovers()).toBe(before + (kind === 'file' ? 1 : chunks + 1));
  });

  it('answers nothing for a call without a recording, and deletes one that has', async () => {
    const missing = randomUUID();
    expect(await t.store.stat(missing)).toBeUndefined();
    expect(await t.store.read(missing)).toBeUndefined();
    expect(await t.store.read(missing, { start: 0, end: 10 })).toBeUndefined();
    expect(await t.store.delete(missing)).toBe(false);
    const id = randomUUID();
    await t.store.put(id, Readable.from([randomBytes(1000)]));
    expect(await t.store.delete(id)).toBe(true);
    expect(await t.store.stat(id)).toBeUndefined();
    expect(await t.store.read(id)).toBeUndefined();
    expect(await t.store.delete(id)).toBe(false);
  });

  it('refuses ids that are not UUIDs, whatever the operation', async () => {
    for (const bad of ['../../etc/passwd', 'recording', '', `${randomUUID()}/x`, `${randomUUID()}.wav`]) {
      await rejectionOf(t.store.put(bad, Readable.from([Buffer.from('x')])), RecordingIdError);
      await rejectionOf(t.store.stat(bad), RecordingIdError);
      await rejectionOf(t.store.read(bad), RecordingIdError);
      await rejectionOf(t.store.delete(bad), RecordingIdError);
    }
  });
});

describe.runIf(storeKinds().includes('jetstream'))('JetStreamRecordingStore range reads', () => {
  let t: StoreUnderTest;
  beforeAll(async () => {
    t = await openStoreUnderTest('jetstream');
  });
  afterAll(async () => {
    await t?.dispose();
  });

  it('skips the chunks before a range without fetching their bytes', async () => {
    const id = randomUUID();
    const bytes = randomBytes(LARGE);
    await t.store.put(id, Readable.from([bytes]));
    const before = t.bytesReceived()!;
    const tail = await readAll(await t.store.read(id, { start: LARGE - 1000, end: LARGE - 1 }));
    expect(tail.equals(bytes.subarray(LARGE - 1000))).toBe(true);
    // One chunk's bytes and the skipped chunks' headers, not the 5 MB before the range.
    expect(t.bytesReceived()! - before).toBeLessThan(200 * 1024);
  });
});
