import { randomInt } from 'node:crypto';
import { encodeG711, FRAME_SAMPLES, type G711Codec, silencePayload } from './codec';
import { dtmfPayloads } from './dtmf';
import type { PlaybackQueue } from './playback-queue';
import type { RtpFields } from './rtp-packet';

interface DtmfJob {
  payloads: Uint8Array[];
  gapTicks: number;
  done: () => void;
}

export interface SentFrame {
  packet: RtpFields;
  /** What the packet says, as PCM, for the recording (silence for events and comfort packets). */
  pcm: Int16Array | undefined;
}

/**
 * Our outgoing stream, one packet per 20 ms tick: speech from the playback queue, RFC 4733
 * events while digits are queued, and otherwise silence, so NAT bindings and the far end's
 * media timers stay alive. Holds the sequence number, timestamp and SSRC (random starts, RFC 3550).
 */
export class RtpSender {
  readonly ssrc = randomInt(1, 2 ** 32 - 1);
  #seq = randomInt(0, 0x10000);
  #timestamp = randomInt(0, 2 ** 32 - 1);
  #talking = false;
  #dtmf: DtmfJob[] = [];
  #dtmfIndex = 0;
  #dtmfTimestamp = 0;
  #gapLeft = 0;
  #silence: Uint8Array;
  packetsSent = 0;
  octetsSent = 0;

  private codec: G711Codec = 'PCMU';
  private payloadType = 0;
  private eventPayloadType: number | undefined;

  constructor() {
    this.#silence = silencePayload(this.codec);
  }

  /** What the answer settled; may change when a final answer follows early media. */
  configure(codec: G711Codec, payloadType: number, eventPayloadType: number | undefined): void {
    this.codec = codec;
    this.payloadType = payloadType;
    this.eventPayloadType = eventPayloadType;
    this.#silence = silencePayload(codec);
  }

  /** The RTP timestamp of the next packet, for sender reports. */
  get timestamp(): number {
    return this.#timestamp >>> 0;
  }

  get dtmfAvailable(): boolean {
    return this.eventPayloadType !== undefined;
  }

  queueDigit(digit: string, durationMs: number, gapMs: number): Promise<void> {
    const payloads = dtmfPayloads(digit, durationMs);
    return new Promise((done) => this.#dtmf.push({ payloads, gapTicks: Math.ceil(gapMs / 20), done }));
  }

  /** Drops queued digits (the call is ending); their promises resolve. */
  clearDigits(): void {
    for (const job of this.#dtmf.splice(0)) job.done();
    this.#dtmfIndex = 0;
  }

  next(playback: PlaybackQueue): SentFrame {
    const event = this.#nextEvent();
    const frame: SentFrame = event ?? this.#nextAudio(playback);
    this.#seq = (this.#seq + 1) & 0xffff;
    this.#timestamp = (this.#timestamp + FRAME_SAMPLES) >>> 0;
    this.packetsSent++;
    this.octetsSent += frame.packet.payload.length;
    return frame;
  }

  /** Ticks that could not be sent in time: the timestamp moves on, as the far end's clock did. */
  skip(ticks: number): void {
    this.#timestamp = (this.#timestamp + ticks * FRAME_SAMPLES) >>> 0;
    this.#talking = false;
  }

  #nextAudio(playback: PlaybackQueue): SentFrame {
    const pcm = playback.next();
    const marker = pcm !== undefined && !this.#talking;
    this.#talking = pcm !== undefined;
    return {
      packet: {
        payloadType: this.payloadType,
        sequenceNumber: this.#seq,
        timestamp: this.#timestamp,
        ssrc: this.ssrc,
        marker,
        payload: pcm ? encodeG711(this.codec, pcm) : this.#silence,
      },
      pcm,
    };
  }

  #nextEvent(): SentFrame | undefined {
    const job = this.#dtmf[0];
    if (!job || this.eventPayloadType === undefined) return undefined;
    if (this.#dtmfIndex >= job.payloads.length) {
      if (this.#gapLeft-- > 0) return undefined;
      this.#dtmf.shift();
      this.#dtmfIndex = 0;
      job.done();
      return this.#nextEvent();
    }
    if (this.#dtmfIndex === 0) this.#dtmfTimestamp = this.#timestamp;
    const payload = job.payloads[this.#dtmfIndex]!;
    const marker = this.#dtmfIndex === 0;
    this.#dtmfIndex++;
    if (this.#dtmfIndex === job.payloads.length) this.#gapLeft = job.gapTicks;
    this.#talking = false;
    return {
      packet: {
        payloadType: this.eventPayloadType,
        sequenceNumber: this.#seq,
        timestamp: this.#dtmfTimestamp,
        ssrc: this.ssrc,
        marker,
        payload,
      },
      pcm: undefined,
    };
  }
}
