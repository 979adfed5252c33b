import { open, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { type Span, type SpanOptions, speechSpans } from './recording-analysis';

// baresip's sndfile dumps as they grow: libsndfile writes each 20 ms frame as it passes, after a
// 44-byte header (16-bit PCM mono at the codec's rate, 8 kHz for G.711), and fills in the sizes
// only when the call ends. Reading the file's length during a call tells where in the recording
// "now" is; reading its new bytes lets a test hear the agent as the call goes.

const HEADER = 44;

/** The newest `dump-*-<side>.wav` in `records` (sndfile names them by the second the call began). */
export async function newestDump(records: string, side: 'enc' | 'dec'): Promise<string | undefined> {
  const files = (await readdir(records)).filter((f) => f.endsWith(`-${side}.wav`)).sort();
  return files.length > 0 ? path.join(records, files.at(-1)!) : undefined;
}

/** How many samples a growing dump holds now (undefined when there is no such file yet). */
export async function dumpSamples(file: string | undefined): Promise<number | undefined> {
  if (!file) return undefined;
  const size = await stat(file).then(
    (s) => s.size,
    () => undefined,
  );
  return size === undefined ? undefined : Math.max(0, Math.floor((size - HEADER) / 2));
}

/** The samples of a growing dump, read on from where the last call stopped; at most `maxSamples` kept. */
export class GrowingDump {
  #samples = new Int16Array(0);
  #read = 0;

  constructor(
    readonly file: string,
    private readonly maxSamples = 8000 * 600,
  ) {}

  /** Everything written so far (whole samples only). */
  async samples(): Promise<Int16Array> {
    const available = await dumpSamples(this.file);
    if (available === undefined || available <= this.#read) return this.#samples;
    const count = Math.min(available, this.maxSamples) - this.#read;
    if (count <= 0) return this.#samples;
    const bytes = Buffer.alloc(count * 2);
    const handle = await open(this.file, 'r');
    try {
      await handle.read(bytes, 0, bytes.length, HEADER + this.#read * 2);
    } finally {
      await handle.close();
    }
    const next = new Int16Array(this.#read + count);
    next.set(this.#samples);
    for (let i = 0; i < count; i++) next[this.#read + i] = bytes.readInt16LE(i * 2);
    this.#samples = next;
    this.#read += count;
    return next;
  }
}

export interface HeardSpeech {
  /** Where in the dump (ms from its start). */
  span: Span;
  /** When it was noticed: the end of speech plus the quiet that closed it, plus up to a poll (40 ms). */
  noticed: { at: number; date: Date };
}

export interface HeardSpeechOptions extends SpanOptions {
  /** Only speech going on at or after this position in the dump (ms) counts (default: where it is now). */
  after?: number;
  /** Quiet that ends the speech; shorter pauses are inside it (default 700 ms). */
  quietMs?: number;
  /** Rejects after this (default 30 s). */
  timeoutMs?: number;
}

/** Waits for speech in the newest growing `side` dump of `records` that then falls quiet. */
export async function waitForSpeechInDump(
  records: string,
  side: 'enc' | 'dec',
  options: HeardSpeechOptions = {},
  callOver: () => boolean = () => false,
): Promise<HeardSpeech> {
  const deadline = performance.now() + (options.timeoutMs ?? 30_000);
  const after = options.after ?? ((await dumpSamples(await newestDump(records, side))) ?? 0) / 8;
  const quietMs = options.quietMs ?? 700;
  let dump: GrowingDump | undefined;
  let seen = 'nothing yet';
  for (;;) {
    const file = await newestDump(records, side);
    if (file && dump?.file !== file) dump = new GrowingDump(file);
    if (dump) {
      const samples = await dump.samples();
      const heardUpTo = (samples.length * 1000) / (options.rate ?? 8000);
      const spans = speechSpans(samples, { ...options, hangoverMs: quietMs });
      const span = spans.find((s) => s.endMs > after && s.endMs + quietMs <= heardUpTo);
      seen = `${JSON.stringify(spans.slice(-4))} in ${heardUpTo} ms`;
      if (span) return { span, noticed: { at: performance.now(), date: new Date() } };
    }
    const why = callOver() ? 'before the call ended' : performance.now() > deadline ? 'in time' : undefined;
    if (why)
      throw new Error(
        `no speech after ${after} ms of ${side} ending in ${quietMs} ms of quiet ${why} (heard ${seen})`,
      );
    await new Promise((r) => setTimeout(r, 40));
  }
}
