import { Readable } from 'node:stream';
import { MAX_CALL_SECONDS } from './plan';
import { createRng, type Rng } from './prng';

/** Telephone-band audio: 8 kHz, mono, 16-bit little-endian PCM. */
export const WAV_FORMAT = { sampleRate: 8000, channels: 1, bitsPerSample: 16 } as const;
const BYTES_PER_SECOND = (WAV_FORMAT.sampleRate * WAV_FORMAT.channels * WAV_FORMAT.bitsPerSample) / 8;
export const WAV_HEADER_BYTES = 44;
/** One second per chunk: 16,000 bytes, well under the 64 KiB a stream consumer expects at most. */
const CHUNK_SAMPLES = WAV_FORMAT.sampleRate;

export function wavHeader(dataBytes: number): Buffer {
  const h = Buffer.alloc(WAV_HEADER_BYTES);
  h.write('RIFF', 0, 'ascii');
  h.writeUInt32LE(36 + dataBytes, 4);
  h.write('WAVE', 8, 'ascii');
  h.write('fmt ', 12, 'ascii');
  h.writeUInt32LE(16, 16); // fmt chunk size for PCM
  h.writeUInt16LE(1, 20); // audio format 1 = PCM
  h.writeUInt16LE(WAV_FORMAT.channels, 22);
  h.writeUInt32LE(WAV_FORMAT.sampleRate, 24);
  h.writeUInt32LE(BYTES_PER_SECOND, 28);
  h.writeUInt16LE((WAV_FORMAT.channels * WAV_FORMAT.bitsPerSample) / 8, 32); // block align
  h.writeUInt16LE(WAV_FORMAT.bitsPerSample, 34);
  h.write('data', 36, 'ascii');
  h.writeUInt32LE(dataBytes, 40);
  return h;
}

/** A stretch of the recording: one party talking (a voiced tone) or a pause. */
interface Segment {
  endSample: number;
  /** Fundamental frequency in Hz, or 0 for a pause. */
  f0: number;
  /** Syllables per second: the loudness pulses at this rate, like speech does. */
  syllableRate: number;
}

/** Speech-like turns that alternate between a higher (agent) and a lower (contact) voice. */
function* segments(rng: Rng): Generator<Segment> {
  const agentF0 = rng.between(170, 210);
  const userF0 = rng.between(105, 150);
  let at = 0;
  for (let turn = 0; ; turn++) {
    at += Math.round(rng.between(0.3, 1.2) * WAV_FORMAT.sampleRate);
    yield { endSample: at, f0: 0, syllableRate: 0 };
    at += Math.round(rng.between(1.5, 6) * WAV_FORMAT.sampleRate);
    yield { endSample: at, f0: turn % 2 === 0 ? agentF0 : userF0, syllableRate: rng.between(3.5, 5) };
  }
}

/**
 * PCM from `fromSecond` on. Turn boundaries are replayed without synthesising samples and the
 * noise is seeded per second, so any second can be produced without the ones before it.
 */
function* pcm(callId: string, totalSamples: number, fromSecond: number): Generator<Buffer> {
  const rng = createRng(`recording:${callId}`);
  const turns = segments(rng);
  let segment = turns.next().value as Segment;
  for (let start = fromSecond * CHUNK_SAMPLES; start < totalSamples; start += CHUNK_SAMPLES) {
    const noise = createRng(`noise:${callId}:${start / CHUNK_SAMPLES}`);
    const count = Math.min(CHUNK_SAMPLES, totalSamples - start);
    const chunk = Buffer.alloc(count * 2);
    for (let i = 0; i < count; i++) {
      const n = start + i;
      while (n >= segment.endSample) segment = turns.next().value as Segment;
      let sample = (noise.next() - 0.5) * 60;
      if (segment.f0 > 0) {
        const t = n / WAV_FORMAT.sampleRate;
        const envelope = Math.abs(Math.sin(Math.PI * segment.syllableRate * t)) ** 0.6;
        const phase = 2 * Math.PI * segment.f0 * t + 0.8 * Math.sin(2 * Math.PI * 3 * t);
        const voice = Math.sin(phase) + 0.5 * Math.sin(2 * phase) + 0.25 * Math.sin(3 * phase);
        sample += 1800 * envelope * voice; // about -20 dBFS: quiet, never clipping
      }
      chunk.writeInt16LE(Math.round(sample), i * 2);
    }
    yield chunk;
  }
}

/**
 * The recording of a call as a WAV file of exactly `durationSeconds` (whole seconds, capped at
 * MAX_CALL_SECONDS), generated a second at a time as the consumer reads: nothing is stored and
 * memory stays flat whatever the length. Deterministic per call id.
 */
export function synthesizeRecording(
  callId: string,
  durationSeconds: number,
  fromByte = 0,
): { contentLength: number; stream: Readable } {
  const seconds = Number.isFinite(durationSeconds)
    ? Math.min(MAX_CALL_SECONDS, Math.max(0, Math.floor(durationSeconds)))
    : 0;
  const dataBytes = seconds * BYTES_PER_SECOND;
  // Starts at the second holding `fromByte`, then trims the bytes before it.
  function* file(): Generator<Buffer> {
    let skip = Math.max(0, fromByte);
    if (skip < WAV_HEADER_BYTES) yield wavHeader(dataBytes).subarray(skip);
    skip = Math.max(0, skip - WAV_HEADER_BYTES);
    const fromSecond = Math.floor(skip / BYTES_PER_SECOND);
    skip -= fromSecond * BYTES_PER_SECOND;
    for (const chunk of pcm(callId, seconds * WAV_FORMAT.sampleRate, fromSecond)) {
      yield skip > 0 ? chunk.subarray(skip) : chunk;
      skip = 0;
    }
  }
  return {
    contentLength: WAV_HEADER_BYTES + dataBytes,
    stream: Readable.from(file(), { objectMode: false }),
  };
}
