import { envelope, readPcmWav } from './audio';

// What a recording of a call holds, in time: where someone spoke. A plain energy gate is enough
// for synthetic speech on a clean loopback, where silence is digital zero (G.711 silence decodes
// to 0 in mu-law and to +-8 in A-law).

export interface Span {
  startMs: number;
  endMs: number;
}

export interface SpanOptions {
  /** Sample rate of `samples` (default 8000). */
  rate?: number;
  /** RMS of a 20 ms frame above which it counts as sound (default 300, about -40 dBFS). */
  threshold?: number;
  /** Quiet shorter than this inside speech (pauses between words) does not end a span (default 400 ms). */
  hangoverMs?: number;
  /** Spans shorter than this are clicks, not speech, and are dropped (default 80 ms). */
  minSpanMs?: number;
}

const FRAME_MS = 20;

/** A mono recording's rate and samples (a dump of baresip's is mono; a stereo file gives its first channel). */
export async function readMono(file: string): Promise<{ rate: number; samples: Int16Array }> {
  const wav = await readPcmWav(file);
  return { rate: wav.rate, samples: wav.channels[0]! };
}

/** RMS of each 20 ms frame of `samples` at `rate`. */
export function energyEnvelope(samples: ArrayLike<number>, rate = 8000): number[] {
  return envelope(samples, Math.round((rate * FRAME_MS) / 1000));
}

/**
 * Where there is sound, in ms from the start of `samples`, on 20 ms frames: a span starts at the
 * first loud frame and ends after the last loud frame that is not followed by another within the
 * hangover.
 */
export function speechSpans(samples: ArrayLike<number>, options: SpanOptions = {}): Span[] {
  const threshold = options.threshold ?? 300;
  const hangoverFrames = Math.ceil((options.hangoverMs ?? 400) / FRAME_MS);
  const minMs = options.minSpanMs ?? 80;
  const loud = energyEnvelope(samples, options.rate ?? 8000).map((rms) => rms > threshold);
  const spans: Span[] = [];
  let start = -1;
  let lastLoud = -1;
  const close = () => {
    const span = { startMs: start * FRAME_MS, endMs: (lastLoud + 1) * FRAME_MS };
    if (span.endMs - span.startMs >= minMs) spans.push(span);
    start = -1;
  };
  loud.forEach((isLoud, i) => {
    if (isLoud) {
      if (start < 0) start = i;
      lastLoud = i;
    } else if (start >= 0 && i - lastLoud > hangoverFrames) close();
  });
  if (start >= 0) close();
  return spans;
}

/** The first sample whose magnitude reaches `level`, in ms at `rate` (undefined when none does). */
export function firstSoundMs(samples: ArrayLike<number>, rate = 8000, level = 1000): number | undefined {
  for (let i = 0; i < samples.length; i++) if (Math.abs(samples[i]!) >= level) return (i * 1000) / rate;
  return undefined;
}
