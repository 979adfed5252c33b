import { DEFAULT_AMD_THRESHOLDS } from '../../domain/amd';
import { Hearing } from './hearing';

export interface VoicemailWaitOptions {
  /** This much silence after the greeting's last word (or from the start, without one) is the cue; default 2500. */
  silenceMs?: number;
  /** Give up waiting after this long from the first frame pushed; default 30000. */
  timeoutMs?: number;
}

export type VoicemailCue =
  /** The beep ended at `atMs`: record now. */
  | { type: 'beep'; atMs: number; frequencyHz: number }
  /** No beep, but the greeting is over: the machine is probably recording already. */
  | { type: 'silence'; atMs: number }
  | { type: 'timeout'; atMs: number };

/**
 * Waits on an answering machine for the moment to leave a message. Take one from
 * AnsweringMachineDetector.voicemailWaiter() to carry on from detection; a fresh one (no
 * `hearing`) starts from nothing.
 */
export class VoicemailBeepWaiter {
  readonly #silenceMs: number;
  readonly #timeoutMs: number;
  #startMs: number | undefined;
  #cue: VoicemailCue | undefined;

  constructor(
    options: VoicemailWaitOptions = {},
    private readonly hearing: Hearing = new Hearing(DEFAULT_AMD_THRESHOLDS),
  ) {
    this.#silenceMs = options.silenceMs ?? 2500;
    this.#timeoutMs = options.timeoutMs ?? 30_000;
  }

  /** The cue once, on the frame that gives it; undefined before and after. */
  push(frame: Int16Array, atMs: number): VoicemailCue | undefined {
    if (this.#cue) return undefined;
    this.#startMs ??= atMs;
    const beep = this.hearing.hear(frame, atMs);
    const now = this.hearing.endMs;
    if (beep) {
      this.#cue = { type: 'beep', atMs: beep.endMs, frequencyHz: beep.frequencyHz };
    } else if (now - this.#startMs >= this.#timeoutMs) {
      this.#cue = { type: 'timeout', atMs: now };
    } else {
      const quietSince = this.#quietSince();
      if (quietSince !== undefined && now - quietSince >= this.#silenceMs)
        this.#cue = { type: 'silence', atMs: now };
    }
    return this.#cue;
  }

  /** Since when nothing was said (and no tone is sounding); undefined while something is. */
  #quietSince(): number | undefined {
    const { words, beep } = this.hearing;
    if (words.holding || beep.sounding) return undefined;
    return words.lastWordEndMs ?? this.#startMs;
  }
}
