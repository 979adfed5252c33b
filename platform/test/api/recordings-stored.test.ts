import { randomBytes, randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { buildGateway, type Gateway } from '@voice/gateway';
import {
  createLogger,
  createSql,
  httpLimits,
  JetStreamRecordingStore,
  openRecordingStore,
  type RecordingStore,
  type Sql,
  signRecordingUrl,
} from '@voice/shared';
import { infraModes } from '@voice/shared/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../support/harness';

const log = createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'silent', name: 'recordings-test' });
/** Stereo 8 kHz 16-bit: 32 000 bytes a second; 100 s is a 3.2 MB file. */
const SECONDS = 100;

/** A real WAV file: the 44-byte header the recorder writes, then noise as PCM. */
function wav(seconds: number): Buffer {
  const data = randomBytes(seconds * 8000 * 2 * 2);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVEfmt ', 8);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(2, 22); // agent left, callee right
  header.writeUInt32LE(8000, 24);
  header.writeUInt32LE(8000 * 4, 28);
  header.writeUInt16LE(4, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36);
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}

async function get(link: string, range?: string) {
  const res = await fetch(link, range ? { headers: { range } } : {});
  return { res, bytes: Buffer.from(await res.arrayBuffer()) };
}

/** Another gateway replica with its own database pool and its own recording store connection. */
async function startSecondGateway(
  t: TestPlatform,
): Promise<{ url: string; store: RecordingStore; stop(): Promise<void> }> {
  const sql: Sql = createSql(t.databaseUrl, { log, max: 2, applicationName: 'gateway-b' });
  const store = await openRecordingStore(t.config, { log, name: 'gateway-b' });
  let url = '';
  const gateway: Gateway = await buildGateway({
    bus: t.platform.infrastructure.bus,
    sql,
    log,
    adminToken: undefined,
    http: httpLimits(t.config),
    recordingSecret: t.config.RECORDING_URL_SECRET!,
    recordingStore: store,
    publicBaseUrl: () => url,
  });
  url = await gateway.app.listen({ port: 0, host: '127.0.0.1' });
  return {
    url,
    store,
    async stop() {
      await gateway.app.close();
      await store.close();
      await sql.end({ timeout: 5 });
    },
  };
}

describe.each(infraModes())('recordings kept in the recording store (%s)', (mode) => {
  let t: TestPlatform;
  /** The recorder's own handle on the store, as a telephony process elsewhere would hold it. */
  let recorder: RecordingStore;
  const callId = randomUUID();
  const file = wav(SECONDS);
  const linkOn = (baseUrl: string, id = callId) =>
    signRecordingUrl({ baseUrl, callId: id, secret: t.config.RECORDING_URL_SECRET! });

  beforeAll(async () => {
    t = await startTestPlatform(mode);
    recorder = await openRecordingStore(t.config, { log, name: 'recorder' });
    expect(recorder.kind).toBe(mode === 'nats' ? 'jetstream' : 'file');
    await recorder.put(callId, Readable.from([file.subarray(0, 1_000_000), file.subarray(1_000_000)]));
  });
  afterAll(async () => {
    if (recorder instanceof JetStreamRecordingStore) await recorder.destroy();
    await recorder?.close();
    await t?.stop();
  });

  it('serves the whole WAV through a signed link, with its length', async () => {
    const { res, bytes } = await get(linkOn(t.url));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('audio/wav');
    expect(res.headers.get('content-length')).toBe(String(file.length));
    expect(res.headers.get('accept-ranges')).toBe('bytes');
    expect(bytes.equals(file)).toBe(true);
  });

  it('answers HEAD with the length and no body', async () => {
    const res = await fetch(linkOn(t.url), { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-length')).toBe(String(file.length));
    expect((await res.arrayBuffer()).byteLength).toBe(0);
    const part = await fetch(linkOn(t.url), { method: 'HEAD', headers: { range: 'bytes=10-19' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-length')).toBe('10');
  });

  it('serves byte ranges as 206 with Content-Range', async () => {
    const cases: [string, number, number][] = [
      ['bytes=0-43', 0, 43],
      ['bytes=1000000-2000000', 1_000_000, 2_000_000],
      ['bytes=-500', file.length - 500, file.length - 1],
      [`bytes=${file.length - 10}-`, file.length - 10, file.length - 1],
      [`bytes=100-${file.length + 5000}`, 100, file.length - 1],
    ];
    for (const [range, start, end] of cases) {
      const { res, bytes } = await get(linkOn(t.url), range);
      expect(res.status, range).toBe(206);
      expect(res.headers.get('content-range'), range).toBe(`bytes ${start}-${end}/${file.length}`);
      expect(res.headers.get('content-length'), range).toBe(String(end - start + 1));
      expect(bytes.equals(file.subarray(start, end + 1)), range).toBe(true);
    }
    const header = (await get(linkOn(t.url), 'bytes=0-43')).bytes;
    expect(header.subarray(0, 4).toString()).toBe('RIFF');
    expect(header.readUInt16LE(22)).toBe(2);
    expect(header.readUInt32LE(24)).toBe(8000);
  });

  it('answers 416 with the size for a range past the end; ignores ranges it does not serve', async () => {
    const { res, bytes } = await get(linkOn(t.url), `bytes=${file.length}-`);
    expect(res.status).toBe(416);
    expect(res.headers.get('content-range')).toBe(`bytes */${file.length}`);
    expect(JSON.parse(bytes.toString())).toMatchObject({ success: false });
    for (const range of ['bytes=0-1,5-9', 'lines=1-2', 'bytes=x-y']) {
      const whole = await get(linkOn(t.url), range);
      expect(whole.res.status, range).toBe(200);
      expect(whole.bytes.length, range).toBe(file.length);
    }
  });

  it('still wants a valid signature for a stored recording', async () => {
    const link = new URL(linkOn(t.url));
    link.searchParams.set('signature', '0'.repeat(64));
    const { res } = await get(link.toString(), 'bytes=0-43');
    expect(res.status).toBe(403);
    const other = new URL(linkOn(t.url, randomUUID()));
    other.pathname = `/v1/recordings/${callId}.wav`;
    expect((await get(other.toString())).res.status).toBe(403);
  });

  it('falls back to the call service for a call with nothing stored', async () => {
    const { res } = await get(linkOn(t.url, randomUUID()));
    expect(res.status).toBe(404);
  });

  it.runIf(mode === 'nats')('is served by another gateway instance as well', async () => {
    const b = await startSecondGateway(t);
    try {
      const whole = await get(linkOn(b.url));
      expect(whole.res.status).toBe(200);
      expect(whole.bytes.equals(file)).toBe(true);
      const { res, bytes } = await get(linkOn(b.url), 'bytes=2000000-2100000');
      expect(res.status).toBe(206);
      expect(res.headers.get('content-range')).toBe(`bytes 2000000-2100000/${file.length}`);
      expect(bytes.equals(file.subarray(2_000_000, 2_100_001))).toBe(true);
    } finally {
      await b.stop();
    }
  });

  it.runIf(mode === 'nats')('answers 503 when the gateway cannot reach the recording store', async () => {
    const b = await startSecondGateway(t);
    try {
      await b.store.close();
      const { res, bytes } = await get(linkOn(b.url));
      expect(res.status).toBe(503);
      expect(JSON.parse(bytes.toString())).toMatchObject({ detail: 'The recording store is unavailable' });
    } finally {
      await b.stop();
    }
  });
});
