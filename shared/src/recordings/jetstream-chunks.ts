import { DeliverPolicy, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import type { ByteRange } from './store';

/** Where an object's chunks are in its bucket's stream (the layout the object store uses, ADR-20). */
export interface ChunkLocation {
  stream: string;
  /** `$O.<bucket>.C.<nuid>`: every chunk of one object, in order. */
  subject: string;
  /** Bytes in every chunk but the last. */
  chunkSize: number;
}

const SEEK_WAIT_MS = 5_000;

export class RecordingChangedError extends Error {
  constructor() {
    super('the recording was replaced or deleted while it was being read');
    this.name = 'RecordingChangedError';
  }
}

/**
 * The stream sequence of chunk number `index` (0-based), learnt from the headers of the chunks
 * before it: an ordered consumer with `headers_only` delivers each as a small message without its
 * payload, so skipping to the middle of a long recording moves headers, not audio.
 */
async function sequenceOfChunk(js: JetStreamClient, at: ChunkLocation, index: number): Promise<number> {
  const consumer = await js.consumers.get(at.stream, {
    filter_subjects: at.subject,
    deliver_policy: DeliverPolicy.All,
    headers_only: true,
  });
  try {
    const messages = await consumer.fetch({ max_messages: index + 1, expires: SEEK_WAIT_MS });
    let seen = 0;
    for await (const message of messages) {
      if (seen === index) return message.seq;
      seen++;
    }
    throw new RecordingChangedError();
  } finally {
    await consumer.delete().catch(() => undefined);
  }
}

/**
 * Yields the bytes of `range` of one object, a chunk at a time: a direct get per chunk (the stream
 * allows direct gets), each asked for only once the reader wants more, so memory holds one chunk.
 * Chunks before the range are skipped without being fetched (sequenceOfChunk).
 */
export async function* readChunks(
  jsm: JetStreamManager,
  js: JetStreamClient,
  at: ChunkLocation,
  range: ByteRange,
): AsyncGenerator<Buffer> {
  if (range.end < range.start) return;
  const first = Math.floor(range.start / at.chunkSize);
  const last = Math.floor(range.end / at.chunkSize);
  let seq = first === 0 ? 1 : await sequenceOfChunk(js, at, first);
  for (let index = first; index <= last; index++) {
    const message = await jsm.direct.getMessage(at.stream, { next_by_subj: at.subject, seq });
    if (!message) throw new RecordingChangedError();
    const data = message.data;
    const chunkStart = index * at.chunkSize;
    const from = Math.max(range.start - chunkStart, 0);
    const to = Math.min(range.end - chunkStart + 1, data.length);
    if (to <= from) throw new RecordingChangedError();
    yield Buffer.from(data.buffer, data.byteOffset + from, to - from);
    seq = message.seq + 1;
  }
}
