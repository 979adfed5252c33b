import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import {
  JetStreamApiCodes,
  JetStreamApiError,
  type JetStreamClient,
  type JetStreamManager,
  jetstream,
  jetstreamManager,
  StorageType,
} from '@nats-io/jetstream';
import { type ObjectInfo, type ObjectStore, Objm } from '@nats-io/obj';
import type { NatsConnection } from '@nats-io/transport-node';
import { readChunks } from './jetstream-chunks';
import {
  type ByteRange,
  type RecordingSource,
  type RecordingStat,
  type RecordingStore,
  rangeWithin,
  recordingId,
  wavStat,
} from './store';

export const RECORDINGS_BUCKET = 'voice-recordings';
/** The object store's own default chunk: well under the server's 1 MB default max_payload. */
const CHUNK_BYTES = 128 * 1024;

export interface JetStreamRecordingStoreOptions {
  nc: NatsConnection;
  /** Default RECORDINGS_BUCKET; a BUS_PREFIX deployment uses `<prefix>_voice-recordings`. */
  bucket?: string;
  /** Closed with the store (a connection opened for it); otherwise the caller's to close. */
  ownsConnection?: boolean;
}

function isStored(info: ObjectInfo | null): info is ObjectInfo {
  return info !== null && !info.deleted;
}

/** The bucket's stream refused the put because another put of the same name got in first. */
function lostRace(error: unknown): boolean {
  return error instanceof JetStreamApiError && error.code === JetStreamApiCodes.StreamWrongLastSequence;
}

/**
 * The object store reads a web stream. Not Readable.toWeb: on Node 20 a source destroyed with an
 * error ends that stream as if it had finished, and a truncated recording would be stored as whole.
 * Here a failing source fails the read, and so the put. One chunk is asked for at a time.
 */
function webStreamOf(input: Readable): ReadableStream<Uint8Array> {
  const chunks = input[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const next = await chunks.next();
        if (next.done) controller.close();
        else controller.enqueue(next.value);
      },
      async cancel() {
        await chunks.return?.();
      },
    },
    { highWaterMark: 0 },
  );
}

/**
 * Recordings in a NATS JetStream object store (the bucket is created when missing), so every
 * gateway can serve a recording made anywhere. The object store writes the chunks first and the
 * object's description last, so a reader never sees an object whose chunks are still arriving;
 * a put that fails removes the chunks it wrote.
 */
export class JetStreamRecordingStore implements RecordingStore {
  readonly kind = 'jetstream' as const;

  private constructor(
    private readonly nc: NatsConnection,
    private readonly os: ObjectStore,
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    readonly bucket: string,
    private readonly ownsConnection: boolean,
  ) {}

  static async open(options: JetStreamRecordingStoreOptions): Promise<JetStreamRecordingStore> {
    const bucket = options.bucket ?? RECORDINGS_BUCKET;
    const js = jetstream(options.nc);
    const os = await new Objm(js).create(bucket, {
      description: 'Call recordings (WAV) by call id',
      storage: StorageType.File,
    });
    const jsm = await jetstreamManager(options.nc);
    return new JetStreamRecordingStore(options.nc, os, js, jsm, bucket, options.ownsConnection ?? false);
  }

  async put(callId: string, source: RecordingSource): Promise<RecordingStat> {
    const name = recordingId(callId);
    const input = typeof source === 'string' ? createReadStream(source) : source;
    // The source may fail before the put reads it (during the lookup below); the read reports that
    // failure, which must not also surface as an unhandled 'error' event.
    input.on('error', () => {});
    // The put is conditional on what was there when it started: of two puts running at once, the
    // second to finish is refused by the server (and removes its chunks) instead of leaving the
    // first one's chunks behind unreferenced. The recording kept is the first one, whole.
    const previous = await this.os.info(name);
    try {
      const info = await this.os.put({ name, options: { max_chunk_size: CHUNK_BYTES } }, webStreamOf(input), {
        previousRevision: previous?.revision ?? 0,
      });
      return wavStat(info.size);
    } catch (error) {
      input.destroy();
      if (!lostRace(error)) throw error;
      const kept = await this.os.info(name);
      if (!isStored(kept)) throw error;
      return wavStat(kept.size);
    }
  }

  async stat(callId: string): Promise<RecordingStat | undefined> {
    const info = await this.os.info(recordingId(callId));
    return isStored(info) ? wavStat(info.size) : undefined;
  }

  async read(callId: string, range?: ByteRange): Promise<Readable | undefined> {
    const info = await this.os.info(recordingId(callId));
    if (!isStored(info)) return undefined;
    const wanted = rangeWithin(range, info.size);
    const chunkSize = info.options?.max_chunk_size ?? CHUNK_BYTES;
    const at = { stream: `OBJ_${this.bucket}`, subject: `$O.${this.bucket}.C.${info.nuid}`, chunkSize };
    // Byte mode with a one-chunk mark: at most a chunk or two is held while the reader is slow.
    return Readable.from(readChunks(this.jsm, this.js, at, wanted), {
      objectMode: false,
      highWaterMark: chunkSize,
    });
  }

  async delete(callId: string): Promise<boolean> {
    const name = recordingId(callId);
    if (!isStored(await this.os.info(name))) return false;
    await this.os.delete(name);
    return true;
  }

  /** Removes the bucket and every recording in it (tests, and an operator starting over). */
  async destroy(): Promise<void> {
    await this.os.destroy();
  }

  async close(): Promise<void> {
    if (this.ownsConnection && !this.nc.isClosed()) await this.nc.drain();
  }
}
