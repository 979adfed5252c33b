import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import {
  FileRecordingStore,
  JetStreamRecordingStore,
  type RecordingStore,
  recordingsBucket,
} from '../../src/recordings/index';
import { infraModes, natsUrlOrThrow } from '../../testing/index';

/** A store under test, with what lets a test look behind it. */
export interface StoreUnderTest {
  store: RecordingStore;
  /** Files in the store's folder, or messages in the bucket's stream: what a leak would leave. */
  leftovers(): Promise<number>;
  /** Bytes the store's connection has received (JetStream); undefined for files. */
  bytesReceived(): number | undefined;
  dispose(): Promise<void>;
}

async function fileStore(): Promise<StoreUnderTest> {
  const dir = await mkdtemp(path.join(tmpdir(), 'recordings-test-'));
  const store = await FileRecordingStore.open(path.join(dir, 'recordings'));
  return {
    store,
    leftovers: async () => (await readdir(store.dir)).length,
    bytesReceived: () => undefined,
    dispose: () => rm(dir, { recursive: true, force: true }),
  };
}

async function jetStreamStore(): Promise<StoreUnderTest> {
  const nc: NatsConnection = await connect({ servers: natsUrlOrThrow() });
  const bucket = recordingsBucket(`t${randomBytes(6).toString('hex')}`);
  const store = await JetStreamRecordingStore.open({ nc, bucket });
  const jsm = await jetstreamManager(nc);
  return {
    store,
    leftovers: async () => (await jsm.streams.info(`OBJ_${bucket}`)).state.messages,
    bytesReceived: () => nc.stats().inBytes,
    async dispose() {
      await store.destroy();
      await store.close();
      await nc.close();
    },
  };
}

/** `file` always; `jetstream` when the run has NATS. */
export function storeKinds(): ('file' | 'jetstream')[] {
  return infraModes().includes('nats') ? ['file', 'jetstream'] : ['file'];
}

export function openStoreUnderTest(kind: 'file' | 'jetstream'): Promise<StoreUnderTest> {
  return kind === 'file' ? fileStore() : jetStreamStore();
}

/** A file of `size` random bytes in a fresh folder. */
export async function randomFile(
  size: number,
): Promise<{ path: string; bytes: Buffer; remove(): Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'recording-source-'));
  const file = path.join(dir, 'source.wav');
  const bytes = randomBytes(size);
  await writeFile(file, bytes);
  return { path: file, bytes, remove: () => rm(dir, { recursive: true, force: true }) };
}

export async function readAll(stream: Readable | undefined): Promise<Buffer> {
  if (!stream) throw new Error('no recording');
  const parts: Buffer[] = [];
  for await (const part of stream) parts.push(part as Buffer);
  return Buffer.concat(parts);
}
