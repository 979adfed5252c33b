import {
  type AmdDecision,
  type AmdFeatures,
  type AmdReason,
  type AmdThresholds,
  type AmdVerdict,
  amdThresholds,
  decideAmd,
} from '../../domain/amd';
import { Hearing } from './hearing';
import { VoicemailBeepWaiter, type VoicemailWaitOptions } from './voicemail';

export interface AmdResult {
  verdict: AmdVerdict;
  /** The rule that decided (see AMD_RULES), for logs and the call summary. */
  reason: AmdReason;
  /** The end of the frame that decided, on the caller's clock. */
  decidedAtMs: number;
  features: AmdFeatures;
}

/**
 * Answering-machine detection from the answer on: feed every frame the far end sends (the first
 * one counts as the moment of answer) until a result comes back, once. The thresholds default to
 * DEFAULT_AMD_THRESHOLDS; the rules are the data in domain/amd.ts.
 */
export class AnsweringMachineDetector {
  readonly #thresholds: AmdThresholds;
  readonly #hearing: Hearing;
  #beep = false;
  #result: AmdResult | undefined;

  constructor(options: Partial<AmdThresholds> = {}) {
    this.#thresholds = amdThresholds(options);
    this.#hearing = new Hearing(this.#thresholds);
  }

  get result(): AmdResult | undefined {
    return this.#result;
  }

  /** The verdict once, on the frame that decides it; undefined before and after. */
  push(frame: Int16Array, atMs: number): AmdResult | undefined {
    // Frames after the verdict are still heard, so a waiter taken later starts from the present.
    if (this.#hearing.hear(frame, atMs)) this.#beep = true;
    if (this.#result) return undefined;
    const features = this.features();
    const decision: AmdDecision | undefined = decideAmd(features, this.#thresholds);
    if (!decision) return undefined;
    this.#result = { ...decision, decidedAtMs: this.#hearing.endMs, features };
    return this.#result;
  }

  /** What was heard so far. */
  features(): AmdFeatures {
    const h = this.#hearing;
    const start = h.firstMs ?? 0;
    const now = h.endMs;
    const words = h.words;
    const lastEnd = words.lastWordEndMs;
    return {
      elapsedMs: now - start,
      initialSilenceMs: (words.firstWordStartMs ?? now) - start,
      greetingMs: words.voicedMs,
      words: words.words,
      silenceAfterGreetingMs: !words.inWord && lastEnd !== undefined ? now - lastEnd : 0,
      beep: this.#beep,
      noiseFloorDb: h.classifier.floorDb,
    };
  }

  /**
   * After a `machine` verdict: waits for the beep (or the silence after the greeting) carrying on
   * with what this detector heard, so a greeting or beep already under way is not started afresh.
   * When the verdict's reason is `beep`, the beep is over already: speak at once instead.
   */
  voicemailWaiter(options: VoicemailWaitOptions = {}): VoicemailBeepWaiter {
    return new VoicemailBeepWaiter(options, this.#hearing);
  }
}
