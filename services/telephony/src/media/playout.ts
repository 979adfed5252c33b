import { FRAME_SAMPLES } from './codec';
import {
  type BufferedPacket,
  JitterBuffer,
  type JitterBufferOptions,
  type PushResult,
} from './jitter-buffer';

/** At most this much silence stands in for one gap (50 packets of 20 ms). */
const MAX_GAP_SAMPLES = 50 * FRAME_SAMPLES;
/** Decoded audio waiting beyond this (a far end sending too fast) is trimmed from the front. */
const MAX_QUEUED_SAMPLES = 8000;

/**
 * Turns received packets into a steady 20 ms stream of PCM: the jitter buffer orders them, lost
 * packets become silence of their length, and packets of any size are re-cut into 160 samples.
 */
export class Playout {
  readonly jitter: JitterBuffer<Int16Array>;
  #queue: Int16Array[] = [];
  #queued = 0;
  #lastPacketSamples = FRAME_SAMPLES;

  constructor(options: JitterBufferOptions = {}) {
    this.jitter = new JitterBuffer<Int16Array>(options);
  }

  push(packet: BufferedPacket<Int16Array>, nowMs: number): PushResult {
    return this.jitter.push(packet, nowMs);
  }

  /** The next 20 ms of what the far end said; silence where it said nothing (yet). */
  next(nowMs: number): Int16Array {
    while (this.#queued < FRAME_SAMPLES) {
      const popped = this.jitter.pop(nowMs);
      if (!popped) break;
      if ('lost' in popped) {
        this.#append(new Int16Array(Math.min(MAX_GAP_SAMPLES, popped.lost * this.#lastPacketSamples)));
      } else if (popped.packet.kind === 'audio') {
        this.#lastPacketSamples = popped.packet.payload.length;
        this.#append(popped.packet.payload);
      }
    }
    return this.#take(FRAME_SAMPLES);
  }

  reset(): void {
    this.jitter.reset();
    this.#queue = [];
    this.#queued = 0;
  }

  #append(pcm: Int16Array): void {
    if (pcm.length === 0) return;
    this.#queue.push(pcm);
    this.#queued += pcm.length;
    if (this.#queued > MAX_QUEUED_SAMPLES) this.#take(this.#queued - MAX_QUEUED_SAMPLES);
  }

  #take(samples: number): Int16Array {
    const out = new Int16Array(samples);
    let filled = 0;
    while (filled < samples && this.#queue.length > 0) {
      const head = this.#queue[0]!;
      const n = Math.min(head.length, samples - filled);
      out.set(head.subarray(0, n), filled);
      filled += n;
      if (n === head.length) this.#queue.shift();
      else this.#queue[0] = head.subarray(n);
    }
    this.#queued -= filled;
    return out;
  }
}
