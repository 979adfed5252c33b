import type { Readable } from 'node:stream';
import { Uuid } from '../contracts/common';

/** Every stored recording is a WAV file (stereo 8 kHz: agent left, callee right). */
export const RECORDING_CONTENT_TYPE = 'audio/wav';

export interface RecordingStat {
  /** Bytes in the whole file. */
  size: number;
  contentType: typeof RECORDING_CONTENT_TYPE;
}

/** What a store says of a recording of `size` bytes. */
export function wavStat(size: number): RecordingStat {
  return { size, contentType: RECORDING_CONTENT_TYPE };
}

/** Inclusive byte positions, as in an HTTP Range header: `{ start: 0, end: 99 }` is the first 100 bytes. */
export interface ByteRange {
  start: number;
  end: number;
}

/** A finished recording: the path of a local file, or a stream of its bytes. */
export type RecordingSource = string | Readable;

/**
 * Where finished call recordings are kept, by call id. Audio never crosses the bus: the process
 * that recorded a call puts the file here, and any gateway reads it back from here.
 *
 * - `put` streams the source in (memory stays bounded whatever its size) and is atomic: until it
 *   resolves, `stat` and `read` see the previous recording of that call or none, never part of
 *   this one. It replaces an earlier recording of the same call; of puts of one call running at
 *   the same time, one is kept whole.
 * - `read` streams the bytes of `range` (default: all), or answers undefined when there is no
 *   recording. A range past the end of the file is a RecordingRangeError.
 * - A call id that is not a UUID is refused (RecordingIdError): ids become file and object names.
 */
export interface RecordingStore {
  /** `file` or `jetstream`: shown at start-up and in the operations guide. */
  readonly kind: 'file' | 'jetstream';
  put(callId: string, source: RecordingSource): Promise<RecordingStat>;
  stat(callId: string): Promise<RecordingStat | undefined>;
  read(callId: string, range?: ByteRange): Promise<Readable | undefined>;
  /** True when there was a recording to delete. */
  delete(callId: string): Promise<boolean>;
  /** Releases connections; the store is not used afterwards. */
  close(): Promise<void>;
}

export class RecordingIdError extends Error {
  constructor(callId: string) {
    super(`recording id must be a UUID, got ${JSON.stringify(callId.slice(0, 64))}`);
    this.name = 'RecordingIdError';
  }
}

export class RecordingRangeError extends Error {
  constructor(range: ByteRange, size: number) {
    super(`bytes ${range.start}-${range.end} are outside a recording of ${size} bytes`);
    this.name = 'RecordingRangeError';
  }
}

/** The call id, lower-cased, or a RecordingIdError: it is used as a file and object name. */
export function recordingId(callId: string): string {
  if (!Uuid.safeParse(callId).success) throw new RecordingIdError(callId);
  return callId.toLowerCase();
}

/** The whole file when no range is given; a RecordingRangeError when the range does not fit. */
export function rangeWithin(range: ByteRange | undefined, size: number): ByteRange {
  const wanted = range ?? { start: 0, end: size - 1 };
  const fits =
    Number.isSafeInteger(wanted.start) &&
    Number.isSafeInteger(wanted.end) &&
    wanted.start >= 0 &&
    wanted.end >= wanted.start - 1 &&
    wanted.end < size;
  if (!fits) throw new RecordingRangeError(wanted, size);
  return wanted;
}
