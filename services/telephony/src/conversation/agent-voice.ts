import { performance } from 'node:perf_hooks';
import { FRAME_SAMPLES, SAMPLE_RATE } from '../media/codec';
import type { SpeechSynthesizer } from './types';

/** The part of a call's media the agent speaks into. */
export interface AgentMedia {
  /** Queues 8 kHz PCM behind what is queued; true once sent in full, false when cut. */
  play(pcm: Int16Array): Promise<boolean>;
  /** Drops everything queued at once (barge-in). */
  stopPlayback(): void;
}

/** A line the agent said, as the call record keeps it. */
export interface SpokenLine {
  text: string;
  /** When its first audio went out (ISO). */
  at: string;
  interrupted: boolean;
}

interface LineProgress {
  line: SpokenLine;
  fullText: string;
  /** performance.now() at which its first sample goes out. */
  startMs: number;
  queued: number;
  played: number;
  synthesised: boolean;
}

const SAMPLES_PER_MS = SAMPLE_RATE / 1000;

/**
 * The agent's voice in one call: text through the synthesiser into the call's playback queue in
 * whole 20 ms frames, the lines it said with when they began, and barge-in. Synthesis of a line
 * runs ahead of its playback, so the next line is ready when the one before ends.
 */
export class AgentVoice {
  readonly lines: SpokenLine[] = [];
  #abort = new AbortController();
  #pending: Promise<boolean>[] = [];
  #queuedSamples = 0;
  #open: LineProgress[] = [];
  readonly #warm = new Map<string, Promise<Int16Array[]>>();

  constructor(
    private readonly media: AgentMedia,
    private readonly tts: SpeechSynthesizer,
    private readonly speech: { language: string; voice: string | null },
    private readonly observe: { firstAudio?(ms: number): void; failed?(error: unknown): void } = {},
  ) {}

  /** Audio queued and not yet played: the agent is talking, or about to. */
  get busy(): boolean {
    return this.#queuedSamples > 0;
  }

  /** Synthesises `text` ahead of time (the opening, during answering-machine detection). */
  warm(text: string): void {
    if (this.#warm.has(text)) return;
    const chunks = (async () => {
      const out: Int16Array[] = [];
      for await (const chunk of this.tts.stream({ text, ...this.speech })) out.push(chunk);
      return out;
    })();
    chunks.catch(() => undefined);
    this.#warm.set(text, chunks);
  }

  /**
   * Synthesises `text` and queues it behind what is already queued; resolves once it is all
   * queued (not played), or as soon as the turn is interrupted. False when synthesis failed.
   */
  async say(text: string): Promise<boolean> {
    const signal = this.#abort.signal;
    const progress: LineProgress = {
      line: { text, at: '', interrupted: false },
      fullText: text,
      startMs: 0,
      queued: 0,
      played: 0,
      synthesised: false,
    };
    this.#open.push(progress);
    let carry = new Int16Array(0);
    const started = performance.now();
    let first = true;
    let leading = true;
    try {
      for await (const chunk of this.#chunks(text, signal)) {
        if (signal.aborted) return true;
        if (first) {
          first = false;
          this.observe.firstAudio?.(performance.now() - started);
        }
        let joined = concat(carry, chunk);
        if (leading) {
          // The engines begin a line with up to a quarter second of near-silence: the callee would
          // wait for it at every turn. It goes, but for a short lead-in before the first sound.
          const loud = firstLoudFrame(joined);
          if (loud < 0) {
            carry = joined.slice(Math.max(0, joined.length - LEAD_IN_SAMPLES));
            continue;
          }
          joined = joined.subarray(Math.max(0, loud - LEAD_IN_SAMPLES));
          leading = false;
        }
        const whole = joined.length - (joined.length % FRAME_SAMPLES);
        if (whole > 0) this.#queue(progress, joined.subarray(0, whole));
        carry = joined.slice(whole);
      }
      if (carry.length > 0 && !signal.aborted) this.#queue(progress, carry);
      return true;
    } catch (error) {
      if (signal.aborted) return true;
      this.observe.failed?.(error);
      return false;
    } finally {
      progress.synthesised = true;
      this.#settle(progress);
    }
  }

  /** Resolves once everything queued so far has been played (true) or cut (false). */
  async drained(): Promise<boolean> {
    const results = await Promise.all(this.#pending.splice(0));
    return results.every(Boolean);
  }

  /**
   * The callee talks over the agent: playback stops at once, synthesis in progress stops, and
   * each line is cut where the agent stopped (by the share of its audio that went out).
   */
  interrupt(): boolean {
    const wasTalking = this.#queuedSamples > 0 || this.#open.some((p) => !p.synthesised);
    this.#abort.abort();
    this.#abort = new AbortController();
    this.media.stopPlayback();
    for (const progress of this.#open) this.#cut(progress);
    this.#open = [];
    return wasTalking;
  }

  /** Stops everything (the call ended). */
  close(): void {
    this.interrupt();
  }

  #chunks(text: string, signal: AbortSignal): AsyncIterable<Int16Array> {
    const warm = this.#warm.get(text);
    if (warm) {
      this.#warm.delete(text);
      return (async function* () {
        yield* await warm;
      })();
    }
    return this.tts.stream({ text, ...this.speech, signal });
  }

  #queue(progress: LineProgress, pcm: Int16Array): void {
    if (progress.queued === 0) {
      // It begins when what is queued before it has played.
      const ahead = this.#queuedSamples / SAMPLES_PER_MS;
      progress.startMs = performance.now() + ahead;
      progress.line.at = new Date(Date.now() + ahead).toISOString();
      this.lines.push(progress.line);
    }
    progress.queued += pcm.length;
    this.#queuedSamples += pcm.length;
    const played = this.media.play(pcm).then((complete) => {
      this.#queuedSamples -= pcm.length;
      if (complete) progress.played += pcm.length;
      this.#settle(progress);
      return complete;
    });
    this.#pending.push(played);
  }

  /** A line fully synthesised and played is closed: nothing can cut it any more. */
  #settle(progress: LineProgress): void {
    if (progress.synthesised && progress.played >= progress.queued && progress.queued > 0) {
      this.#open = this.#open.filter((p) => p !== progress);
    }
  }

  /** Played share by the clock (a chunk may be a whole sentence); a line not begun was never said. */
  #cut(progress: LineProgress): void {
    if (progress.queued === 0) return;
    const heard = Math.min(progress.queued, (performance.now() - progress.startMs) * SAMPLES_PER_MS);
    if (heard <= 0) {
      this.lines.splice(this.lines.indexOf(progress.line), 1);
      return;
    }
    // Synthesis still running: the line is longer than what was queued; guess it at twice that.
    const share = heard / (progress.synthesised ? progress.queued : progress.queued * 2);
    if (share >= 1) return;
    const words = progress.fullText.split(/\s+/).filter(Boolean);
    const kept = Math.floor(words.length * share);
    progress.line.text = kept > 0 ? `${words.slice(0, kept).join(' ')} \u2014` : '\u2014';
    progress.line.interrupted = true;
  }
}

/** Quiet kept before a line's first sound: 40 ms. */
const LEAD_IN_SAMPLES = 2 * FRAME_SAMPLES;
/** A 20 ms frame with an RMS below this (about -44 dBFS) is silence as far as a listener can tell. */
const QUIET_RMS = 200;

/** Where the first frame loud enough to hear begins (a frame boundary), or -1. */
function firstLoudFrame(pcm: Int16Array): number {
  for (let start = 0; start + FRAME_SAMPLES <= pcm.length; start += FRAME_SAMPLES) {
    let sum = 0;
    for (let i = start; i < start + FRAME_SAMPLES; i++) sum += pcm[i]! * pcm[i]!;
    if (Math.sqrt(sum / FRAME_SAMPLES) >= QUIET_RMS) return start;
  }
  return -1;
}

function concat(a: Int16Array, b: Int16Array): Int16Array {
  if (a.length === 0) return b;
  const out = new Int16Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
