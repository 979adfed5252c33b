import { seqDiff } from './rtp-packet';

/** What one RTCP reception report block says about the stream we receive (RFC 3550 6.4.1). */
export interface ReceptionSnapshot {
  ssrc: number;
  fractionLost: number;
  totalLost: number;
  highestSeq: number;
  /** Interarrival jitter in timestamp units (1/8000 s). */
  jitter: number;
}

const MAX_DROPOUT = 3000;
const MAX_MISORDER = 100;

/**
 * Loss and jitter of the incoming stream, by the algorithms of RFC 3550 appendices A.1, A.3
 * and A.8. Pure: arrival times are passed in, in milliseconds of a monotonic clock.
 */
export class ReceiverStats {
  #ssrc: number | undefined;
  #baseSeq = 0;
  #maxSeq = 0;
  #cycles = 0;
  #received = 0;
  #expectedPrior = 0;
  #receivedPrior = 0;
  #transit: number | undefined;
  #jitter = 0;
  octets = 0;

  get received(): number {
    return this.#received;
  }

  get jitterSamples(): number {
    return this.#jitter;
  }

  get ssrc(): number | undefined {
    return this.#ssrc;
  }

  update(
    ssrc: number,
    seq: number,
    rtpTimestamp: number,
    arrivalMs: number,
    payloadBytes: number,
    audio: boolean,
  ): void {
    if (this.#ssrc !== ssrc) this.#restart(ssrc, seq);
    const delta = seqDiff(seq, this.#maxSeq);
    if (delta > 0 && delta < MAX_DROPOUT) {
      if (seq < this.#maxSeq) this.#cycles += 65536;
      this.#maxSeq = seq;
    } else if (delta < -MAX_MISORDER || delta >= MAX_DROPOUT) {
      this.#restart(ssrc, seq);
    }
    this.#received++;
    this.octets += payloadBytes;
    // Event packets repeat one timestamp for many packets: they would read as jitter.
    if (!audio) return;
    const arrival = Math.round(arrivalMs * 8);
    const transit = (arrival - rtpTimestamp) | 0;
    if (this.#transit !== undefined) {
      const d = Math.abs((transit - this.#transit) | 0);
      this.#jitter += (d - this.#jitter) / 16;
    }
    this.#transit = transit;
  }

  /** The report block for now; also starts the next interval for the fraction lost. */
  snapshot(): ReceptionSnapshot | undefined {
    if (this.#ssrc === undefined) return undefined;
    const extendedMax = this.#cycles + this.#maxSeq;
    const expected = extendedMax - this.#baseSeq + 1;
    const totalLost = Math.max(-0x800000, Math.min(0x7fffff, expected - this.#received));
    const expectedInterval = expected - this.#expectedPrior;
    const receivedInterval = this.#received - this.#receivedPrior;
    this.#expectedPrior = expected;
    this.#receivedPrior = this.#received;
    const lostInterval = expectedInterval - receivedInterval;
    const fractionLost =
      expectedInterval === 0 || lostInterval <= 0
        ? 0
        : Math.min(255, Math.floor((lostInterval << 8) / expectedInterval));
    return {
      ssrc: this.#ssrc,
      fractionLost,
      totalLost,
      highestSeq: extendedMax >>> 0,
      jitter: Math.floor(this.#jitter),
    };
  }

  #restart(ssrc: number, seq: number): void {
    this.#ssrc = ssrc;
    this.#baseSeq = seq;
    this.#maxSeq = seq;
    this.#cycles = 0;
    this.#received = 0;
    this.#expectedPrior = 0;
    this.#receivedPrior = 0;
    this.#transit = undefined;
    this.#jitter = 0;
    this.octets = 0;
  }
}
