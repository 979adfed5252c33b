import { seqDiff } from './rtp-packet';

export interface BufferedPacket<T = Int16Array> {
  sequenceNumber: number;
  timestamp: number;
  /** Audio is played; events (RFC 4733) only hold their place in the sequence. */
  kind: 'audio' | 'event';
  payload: T;
}

export interface JitterBufferOptions {
  /** How long the first packet of a burst waits for its followers before playout starts. */
  targetDelayMs?: number;
  /** Depth bound: beyond it the oldest packet is dropped. */
  maxPackets?: number;
}

export type PushResult = 'queued' | 'late' | 'duplicate';
export type PopResult<T> = { packet: BufferedPacket<T> } | { lost: number };

/** A sequence jump this large means the far end restarted its stream, not reordering. */
const RESYNC_DISTANCE = 3000;

/**
 * Reorders packets by sequence number for playout. Pure (time is passed in): the session pops
 * one packet or one gap at a time on its 20 ms clock. Late and duplicate packets are refused;
 * after running dry it waits `targetDelayMs` again, so the delay adapts to the jitter it meets.
 */
export class JitterBuffer<T = Int16Array> {
  readonly #packets = new Map<number, { packet: BufferedPacket<T>; arrivedAt: number }>();
  readonly #targetDelayMs: number;
  readonly #maxPackets: number;
  #next: number | undefined;
  #primed = false;
  readonly counters = { late: 0, duplicate: 0, overflow: 0, lost: 0 };

  constructor(options: JitterBufferOptions = {}) {
    this.#targetDelayMs = options.targetDelayMs ?? 60;
    this.#maxPackets = options.maxPackets ?? 50;
  }

  get depth(): number {
    return this.#packets.size;
  }

  push(packet: BufferedPacket<T>, nowMs: number): PushResult {
    const seq = packet.sequenceNumber;
    if (this.#next !== undefined) {
      const d = seqDiff(seq, this.#next);
      if (Math.abs(d) > RESYNC_DISTANCE) this.reset();
      else if (d < 0) {
        this.counters.late++;
        return 'late';
      }
    }
    if (this.#packets.has(seq)) {
      this.counters.duplicate++;
      return 'duplicate';
    }
    this.#packets.set(seq, { packet, arrivedAt: nowMs });
    if (this.#packets.size > this.#maxPackets) {
      const oldest = this.#earliest()!;
      this.#packets.delete(oldest.packet.sequenceNumber);
      this.counters.overflow++;
      if (this.#next !== undefined && seqDiff(oldest.packet.sequenceNumber, this.#next) >= 0) {
        this.#next = (oldest.packet.sequenceNumber + 1) & 0xffff;
      }
    }
    return 'queued';
  }

  /** The next packet in order, a gap to fill, or undefined when playout must wait. */
  pop(nowMs: number): PopResult<T> | undefined {
    const earliest = this.#earliest();
    if (!earliest) {
      this.#primed = false;
      return undefined;
    }
    const waitedEnough =
      nowMs - earliest.arrivedAt >= this.#targetDelayMs ||
      this.#packets.size * 20 >= this.#targetDelayMs + 20;
    if (!this.#primed) {
      if (!waitedEnough) return undefined;
      this.#primed = true;
      if (this.#next === undefined || seqDiff(earliest.packet.sequenceNumber, this.#next) < 0) {
        this.#next = earliest.packet.sequenceNumber;
      }
    }
    const next = this.#next!;
    const gap = seqDiff(earliest.packet.sequenceNumber, next);
    if (gap > 0) {
      if (!waitedEnough) return undefined;
      this.#next = earliest.packet.sequenceNumber;
      this.counters.lost += gap;
      return { lost: gap };
    }
    this.#packets.delete(earliest.packet.sequenceNumber);
    this.#next = (earliest.packet.sequenceNumber + 1) & 0xffff;
    return { packet: earliest.packet };
  }

  reset(): void {
    this.#packets.clear();
    this.#next = undefined;
    this.#primed = false;
  }

  #earliest(): { packet: BufferedPacket<T>; arrivedAt: number } | undefined {
    let best: { packet: BufferedPacket<T>; arrivedAt: number } | undefined;
    for (const entry of this.#packets.values()) {
      if (!best || seqDiff(entry.packet.sequenceNumber, best.packet.sequenceNumber) < 0) best = entry;
    }
    return best;
  }
}
