import type { AmdVerdict as CallAmdVerdict } from '@voice/shared/contracts';

// Answering-machine detection as a decision table: what was heard since the answer (features) and
// named thresholds in, a verdict and the rule that gave it out. The classic AMD rules (as in
// Asterisk's app_amd): people answer quickly with a word or two and then wait; machines either
// wait in silence, or talk long, and beep.

/** Who picked up: the call record's verdict less `not_run` (detection always runs here). */
export type AmdVerdict = Exclude<CallAmdVerdict, 'not_run'>;

export interface AmdFeatures {
  /** From the answer (the first frame) to the end of the last frame heard. */
  elapsedMs: number;
  /** From the answer to the start of the first word (to now while none was heard). */
  initialSilenceMs: number;
  /** Voiced time of the words heard so far (gaps between them not counted). */
  greetingMs: number;
  /** Energy bursts of at least `minWordMs` separated by at least `betweenWordsMs` of silence. */
  words: number;
  /** Silence since the last word ended (0 before the first word and while one is being said). */
  silenceAfterGreetingMs: number;
  /** A steady tone of a beep's pitch and length was heard. */
  beep: boolean;
  /** The line's noise floor in dBFS: silence is only silence on a quiet line. */
  noiseFloorDb: number;
}

export interface AmdThresholds {
  /** No word this long after the answer: a machine waiting to play its greeting. */
  initialSilenceMs: number;
  /** This much voiced greeting: a machine (people say "hello?" and wait). */
  greetingMs: number;
  /** This many words: a machine. */
  maxWords: number;
  /** A short greeting followed by this much silence: a person waiting for an answer. */
  afterGreetingSilenceMs: number;
  /** After this long without a verdict: uncertain. */
  totalAnalysisMs: number;
  /** A burst shorter than this is not a word (a click, a breath). */
  minWordMs: number;
  /** A pause this long separates two words. */
  betweenWordsMs: number;
  /** A floor above this is a noisy line, where silence rules are not trusted. */
  noisyLineDb: number;
}

export const DEFAULT_AMD_THRESHOLDS: Readonly<AmdThresholds> = Object.freeze({
  initialSilenceMs: 2500,
  greetingMs: 1500,
  maxWords: 4,
  afterGreetingSilenceMs: 800,
  totalAnalysisMs: 4000,
  minWordMs: 100,
  betweenWordsMs: 50,
  noisyLineDb: -35,
});

export type AmdReason =
  | 'beep'
  | 'max_words'
  | 'long_greeting'
  | 'initial_silence'
  | 'short_greeting_then_silence'
  | 'noisy_line'
  | 'analysis_time';

export interface AmdRule {
  reason: AmdReason;
  verdict: AmdVerdict;
  /** In words, for logs and the call summary. */
  description: string;
  when: (f: AmdFeatures, t: AmdThresholds) => boolean;
}

const quiet = (f: AmdFeatures, t: AmdThresholds) => f.noiseFloorDb <= t.noisyLineDb;

/** The rules in order: the first that holds decides. */
export const AMD_RULES: readonly AmdRule[] = [
  {
    reason: 'beep',
    verdict: 'machine',
    description: 'a beep was heard',
    when: (f) => f.beep,
  },
  {
    reason: 'max_words',
    verdict: 'machine',
    description: 'the greeting had too many words',
    when: (f, t) => f.words >= t.maxWords,
  },
  {
    reason: 'long_greeting',
    verdict: 'machine',
    description: 'the greeting was too long',
    when: (f, t) => f.greetingMs >= t.greetingMs,
  },
  {
    reason: 'initial_silence',
    verdict: 'machine',
    description: 'nobody spoke after the answer',
    when: (f, t) => f.words === 0 && f.initialSilenceMs >= t.initialSilenceMs && quiet(f, t),
  },
  {
    reason: 'short_greeting_then_silence',
    verdict: 'human',
    description: 'a short greeting, then silence waiting for an answer',
    when: (f, t) => f.words > 0 && f.silenceAfterGreetingMs >= t.afterGreetingSilenceMs && quiet(f, t),
  },
  {
    reason: 'noisy_line',
    verdict: 'uncertain',
    description: 'the line was too noisy to tell',
    when: (f, t) => f.elapsedMs >= t.totalAnalysisMs && !quiet(f, t),
  },
  {
    reason: 'analysis_time',
    verdict: 'uncertain',
    description: 'no rule decided within the analysis time',
    when: (f, t) => f.elapsedMs >= t.totalAnalysisMs,
  },
];

export interface AmdDecision {
  verdict: AmdVerdict;
  reason: AmdReason;
}

/** The first rule that holds, or undefined while the evidence is still coming. */
export function decideAmd(
  features: AmdFeatures,
  thresholds: AmdThresholds = DEFAULT_AMD_THRESHOLDS,
  rules: readonly AmdRule[] = AMD_RULES,
): AmdDecision | undefined {
  const rule = rules.find((r) => r.when(features, thresholds));
  return rule ? { verdict: rule.verdict, reason: rule.reason } : undefined;
}

/** Thresholds with the given overrides; throws RangeError on a negative or non-number value. */
export function amdThresholds(overrides: Partial<AmdThresholds> = {}): AmdThresholds {
  const merged = { ...DEFAULT_AMD_THRESHOLDS, ...overrides };
  for (const [name, value] of Object.entries(merged)) {
    if (typeof value !== 'number' || Number.isNaN(value) || (name !== 'noisyLineDb' && value < 0)) {
      throw new RangeError(`AMD threshold ${name} must be a non-negative number, got ${value}`);
    }
  }
  return merged;
}
