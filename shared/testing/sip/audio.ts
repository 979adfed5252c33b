import { readFile } from 'node:fs/promises';

// Comparing audio in tests of real calls: energy envelopes and their best correlation, enough to
// tell whether a recording holds a given utterance whatever the codec did to its samples.

/** RMS of each 20 ms frame (160 samples at 8 kHz). */
export function envelope(pcm: ArrayLike<number>, frame = 160): number[] {
  const out: number[] = [];
  for (let start = 0; start + frame <= pcm.length; start += frame) {
    let sum = 0;
    for (let i = start; i < start + frame; i++) sum += (pcm[i] as number) ** 2;
    out.push(Math.sqrt(sum / frame));
  }
  return out;
}

/** Best Pearson correlation of `needle` against `haystack` over every lag. */
export function bestCorrelation(needle: number[], haystack: number[]): { r: number; lag: number } {
  let best = { r: -1, lag: -1 };
  for (let lag = 0; lag + needle.length <= haystack.length; lag++) {
    const r = pearson(needle, haystack.slice(lag, lag + needle.length));
    if (r > best.r) best = { r, lag };
  }
  return best;
}

function pearson(a: number[], b: number[]): number {
  const n = a.length;
  const ma = a.reduce((s, x) => s + x, 0) / n;
  const mb = b.reduce((s, x) => s + x, 0) / n;
  let num = 0;
  let da = 0;
  let db = 0;
  for (let i = 0; i < n; i++) {
    num += (a[i]! - ma) * (b[i]! - mb);
    da += (a[i]! - ma) ** 2;
    db += (b[i]! - mb) ** 2;
  }
  return da === 0 || db === 0 ? 0 : num / Math.sqrt(da * db);
}

/** Without the silence after the last sound. */
export function trimSilence(pcm: Int16Array): Int16Array {
  let end = pcm.length;
  while (end > 0 && Math.abs(pcm[end - 1]!) < 64) end--;
  return pcm.subarray(0, end);
}

/** Every `factor`-th sample: enough for an energy envelope. */
export function decimate(pcm: Int16Array, factor: number): Int16Array {
  return Int16Array.from({ length: Math.floor(pcm.length / factor) }, (_, i) => pcm[Math.floor(i * factor)]!);
}

export interface PcmWav {
  rate: number;
  /** One array per channel, de-interleaved. */
  channels: Int16Array[];
}

/**
 * A 16-bit PCM WAV's format and samples, walking its chunks (so a LIST chunk before `data`, as
 * libsndfile writes, is skipped). Throws on anything else: a test must see a broken file.
 */
export function parsePcmWav(bytes: Buffer): PcmWav {
  if (bytes.toString('ascii', 0, 4) !== 'RIFF' || bytes.toString('ascii', 8, 12) !== 'WAVE')
    throw new Error('not a RIFF/WAVE file');
  let format: { channels: number; rate: number; bits: number; tag: number } | undefined;
  for (let at = 12; at + 8 <= bytes.length; ) {
    const id = bytes.toString('ascii', at, at + 4);
    const size = bytes.readUInt32LE(at + 4);
    const body = at + 8;
    if (id === 'fmt ') {
      format = {
        tag: bytes.readUInt16LE(body),
        channels: bytes.readUInt16LE(body + 2),
        rate: bytes.readUInt32LE(body + 4),
        bits: bytes.readUInt16LE(body + 14),
      };
    } else if (id === 'data') {
      if (!format) throw new Error('data before fmt');
      // 0xFFFE: WAVE_FORMAT_EXTENSIBLE, still PCM for our writers.
      if ((format.tag !== 1 && format.tag !== 0xfffe) || format.bits !== 16)
        throw new Error(`not 16-bit PCM (format ${format.tag}, ${format.bits} bits)`);
      const end = Math.min(bytes.length, body + size);
      const frames = Math.floor((end - body) / (2 * format.channels));
      const channels = Array.from({ length: format.channels }, () => new Int16Array(frames));
      for (let f = 0; f < frames; f++)
        for (let c = 0; c < format.channels; c++)
          channels[c]![f] = bytes.readInt16LE(body + (f * format.channels + c) * 2);
      return { rate: format.rate, channels };
    }
    at = body + size + (size % 2);
  }
  throw new Error('no data chunk');
}

export async function readPcmWav(file: string): Promise<PcmWav> {
  return parsePcmWav(await readFile(file));
}
