import type { CollectedDetail, SipConversation } from '@voice/shared/contracts';

// The seams of the conversation engine: speech out (TTS), speech in (STT) and the dialogue brain.
// Each has a local engine (the default: no network, no downloaded weights) and an adapter for an
// OpenAI-compatible HTTP API. Audio is always 8 kHz mono 16-bit PCM, the telephone's own rate.

/** A kind of answer the brain can expect, from which the recogniser builds its grammar. */
export type SlotKind =
  /** yes, no, sure, nope, that's right ... */
  | 'yes_no'
  /** Whole numbers as people say them: digits, "twenty five", "three hundred thousand". */
  | 'number'
  /** Dates: "tomorrow", "next monday", "the fifth of june", "june fifth". */
  | 'date'
  /** Clock times: "ten thirty", "three p m", "noon". */
  | 'time'
  /** First names (the callee's own, from metadata, plus common ones). */
  | 'name'
  /** Digits spoken one by one (phone numbers, codes). */
  | 'digits';

/** What the agent expects to hear next: the recogniser listens for exactly this (plus the intents). */
export interface Expectation {
  /** Slots that may appear in the answer. */
  slots: readonly SlotKind[];
  /** Extra literal phrases that count this turn (an enum detail's options, the callee's name ...). */
  phrases: readonly string[];
}

/** The standard intents the brain recognises on every turn; their phrases are always in the grammar. */
export const INTENTS = [
  'yes',
  'no',
  'not_interested',
  'call_back',
  'opt_out',
  'wrong_person',
  'question',
  'greeting',
  'goodbye',
] as const;
export type Intent = (typeof INTENTS)[number];

// ---------------------------------------------------------------------------------------------
// Speech synthesis

export interface SynthesisRequest {
  text: string;
  /** The agent's language (a discovery code such as `en`, `en-GB`, `es-MX`). */
  language: string;
  /** The agent's voice id from discovery (`aria`, `davis` ...), mapped onto the engine's voices; null: default. */
  voice: string | null;
  /** Aborting stops synthesis (barge-in, hang-up); the stream then ends without error. */
  signal?: AbortSignal;
}

export interface SpeechSynthesizer {
  /** Name for logs and metrics (`espeak-ng`, `flite`, `openai`). */
  readonly name: string;
  /**
   * Speech as 8 kHz PCM chunks, in order, as it is produced: the first arrives well before the
   * whole text is synthesised (sentence by sentence, or as the engine streams). Chunk sizes vary;
   * the caller frames them. Rejects (on iteration) with SpeechError when it cannot speak at all.
   */
  stream(request: SynthesisRequest): AsyncIterable<Int16Array>;
}

// ---------------------------------------------------------------------------------------------
// Speech recognition

export interface Recognition {
  /** What was recognised, lower case words separated by single spaces; '' when nothing was. */
  text: string;
  /** The engine's confidence, 0 to 1 (0 when text is ''). */
  confidence: number;
}

export interface RecognitionRequest {
  language: string;
  expect: Expectation;
  /** Names worth hearing this call (the callee's, the agent's): added to the `name` slot. */
  names: readonly string[];
}

/** One utterance being recognised: audio goes in as it is heard, the text comes out at its end. */
export interface RecognitionStream {
  /** 8 kHz PCM of the utterance, in order (leading speech included: the VAD keeps a pre-roll). */
  write(pcm: Int16Array): void;
  /** End of utterance: the recognised text. Rejects with SpeechError when the engine failed. */
  finish(): Promise<Recognition>;
  /** Not needed any more (barge-in of a barge-in, hang-up): frees the engine. */
  cancel(): void;
}

export interface SpeechRecognizer {
  readonly name: string;
  /** Whether it can recognise `language` at all; when not, the engine says so in the call record. */
  supports(language: string): boolean;
  /**
   * Prepares to hear one utterance. Called before the callee speaks (while the agent is still
   * talking) so that slow set-up (loading a model, a connection) is off the turn's latency.
   */
  open(request: RecognitionRequest): RecognitionStream;
  /** Loads what every utterance needs (a dictionary), at service start rather than on the first call. */
  prepare?(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// The dialogue brain

/** What the brain knows of the call when it starts. */
export interface BrainContext {
  conversation: SipConversation;
  language: string;
  start_flow: string;
  end_flow: string;
  /** The number the agent calls from (for a voicemail message's call-back number). */
  source_number: string;
  /** Now, for relative dates ("tomorrow"); injectable so tests are deterministic. */
  now: Date;
}

/** What happened since the brain last spoke. */
export type BrainInput =
  /** The callee said something (possibly while the agent was speaking: `interrupted`). */
  | { type: 'utterance'; text: string; confidence: number; interrupted: boolean }
  /** The callee said nothing for the silence timeout; `count` grows with each one in a row. */
  | { type: 'silence'; count: number }
  /** The maximum duration is reached: say goodbye. */
  | { type: 'max_duration' };

/** One step of the brain's answer, in order. `say` pieces may stream (the LLM adapter sends several). */
export type BrainAction =
  | { type: 'say'; text: string }
  | { type: 'record_detail'; name: string; value: string | number | boolean }
  | { type: 'opt_out' }
  /** The agent ends the call after saying what it said this turn. */
  | { type: 'end_call'; reason: ConversationEnd }
  /** What the brain expects to hear next (the last action of a turn that does not end the call). */
  | { type: 'expect'; expect: Expectation };

/** Why the conversation ended, when the agent ended it. */
export type ConversationEnd =
  | 'completed'
  | 'not_interested'
  | 'call_back'
  | 'opted_out'
  | 'wrong_person'
  | 'silence'
  | 'max_duration';

export interface ConversationOutcome {
  collected: Record<string, string | number | boolean>;
  opted_out: boolean;
  sentiment: 'positive' | 'neutral' | 'negative';
  /** One to three sentences: what the call achieved. */
  summary: string;
}

/** A line of the conversation so far, as the brain keeps it. */
export interface ConversationLine {
  role: 'agent' | 'user';
  text: string;
}

export interface BrainSession {
  /** The opening turn: start_flow, the first question, and what to expect. */
  open(): AsyncIterable<BrainAction>;
  /** The next turn. `heard` so far includes this input's utterance. */
  respond(input: BrainInput, lines: readonly ConversationLine[]): AsyncIterable<BrainAction>;
  /** The message left on an answering machine after the beep. */
  voicemailMessage(): string;
  /** At the end: what was collected, sentiment and summary of `lines`. */
  outcome(lines: readonly ConversationLine[], end: ConversationEnd | null): Promise<ConversationOutcome>;
}

export interface Brain {
  /** `rules` (local) or `llm` (an OpenAI-compatible endpoint). */
  readonly name: string;
  start(context: BrainContext): BrainSession;
}

/** A detail the brain still has to ask for, as it asks it. */
export type PendingDetail = CollectedDetail;

/** Thrown by an engine that cannot do its job (not installed, HTTP error, timeout). */
export class SpeechError extends Error {
  override readonly name = 'SpeechError';
}
