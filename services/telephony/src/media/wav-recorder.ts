import { type FileHandle, open } from 'node:fs/promises';
import { SAMPLE_RATE } from './codec';

const HEADER_BYTES = 44;
/** Frames are gathered into writes of about half a second. */
const FLUSH_BYTES = SAMPLE_RATE * 4 * 0.5;
/** Beyond this much unwritten audio (a stalled disk) frames are dropped rather than held. */
const MAX_PENDING_BYTES = 8 * 1024 * 1024;

/**
 * A stereo 8 kHz 16-bit WAV written while the call runs: left is what we sent, right what we
 * heard. Memory stays bounded (at most a flush of pending audio); the RIFF sizes are written
 * on close. Hand-written because wavefile builds a whole file in memory.
 */
export class WavRecorder {
  #chunks: Buffer[] = [];
  #chunkBytes = 0;
  #pendingBytes = 0;
  #dataBytes = 0;
  #writes: Promise<void> = Promise.resolve();
  #error: Error | undefined;
  #closed = false;
  droppedFrames = 0;

  private constructor(
    private readonly file: FileHandle,
    readonly path: string,
  ) {}

  static async create(path: string): Promise<WavRecorder> {
    const file = await open(path, 'w');
    await file.write(wavHeader(0), 0, HEADER_BYTES, 0);
    return new WavRecorder(file, path);
  }

  /** Seconds of audio recorded so far. */
  get durationSeconds(): number {
    return (this.#dataBytes + this.#chunkBytes) / 4 / SAMPLE_RATE;
  }

  /** One time slot; a missing or short side is silence, so both channels stay aligned. */
  write(left: Int16Array | undefined, right: Int16Array | undefined, samples: number): void {
    if (this.#closed) return;
    if (this.#pendingBytes + samples * 4 > MAX_PENDING_BYTES) {
      this.droppedFrames++;
      return;
    }
    const frame = Buffer.alloc(samples * 4);
    for (let i = 0; i < samples; i++) {
      frame.writeInt16LE(left?.[i] ?? 0, i * 4);
      frame.writeInt16LE(right?.[i] ?? 0, i * 4 + 2);
    }
    this.#chunks.push(frame);
    this.#chunkBytes += frame.length;
    this.#pendingBytes += frame.length;
    if (this.#chunkBytes >= FLUSH_BYTES) this.#flush();
  }

  /** Writes what is left and the final header. Safe to call twice. */
  async close(): Promise<void> {
    if (this.#closed) return this.#writes;
    this.#closed = true;
    this.#flush();
    this.#writes = this.#writes.then(async () => {
      try {
        await this.file.write(wavHeader(this.#dataBytes), 0, HEADER_BYTES, 0);
      } finally {
        await this.file.close();
      }
    });
    await this.#writes;
    if (this.#error) throw this.#error;
  }

  #flush(): void {
    if (this.#chunkBytes === 0) return;
    const data = Buffer.concat(this.#chunks, this.#chunkBytes);
    this.#chunks = [];
    this.#chunkBytes = 0;
    const position = HEADER_BYTES + this.#dataBytes;
    this.#dataBytes += data.length;
    this.#writes = this.#writes.then(async () => {
      try {
        if (!this.#error) await this.file.write(data, 0, data.length, position);
      } catch (err) {
        this.#error = err as Error;
      } finally {
        this.#pendingBytes -= data.length;
      }
    });
  }
}

function wavHeader(dataBytes: number): Buffer {
  const h = Buffer.alloc(HEADER_BYTES);
  const channels = 2;
  const bytesPerSample = 2;
  h.write('RIFF', 0, 'ascii');
  h.writeUInt32LE(36 + dataBytes, 4);
  h.write('WAVE', 8, 'ascii');
  h.write('fmt ', 12, 'ascii');
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20); // PCM
  h.writeUInt16LE(channels, 22);
  h.writeUInt32LE(SAMPLE_RATE, 24);
  h.writeUInt32LE(SAMPLE_RATE * channels * bytesPerSample, 28);
  h.writeUInt16LE(channels * bytesPerSample, 32);
  h.writeUInt16LE(bytesPerSample * 8, 34);
  h.write('data', 36, 'ascii');
  h.writeUInt32LE(dataBytes, 40);
  return h;
}
