import { SpeechError } from '../conversation/types';
import { collectSpeech, type LocalEngine, LocalSynthesizer } from '../speech/tts';

// The whole-text speech of the flows, for callers that play it at once (the call's flows, tests,
// benchmarks): the streaming local engine, gathered.

export type TtsEngine = LocalEngine;
export { SpeechError as TtsError };

export interface SynthesizeOptions {
  /** Engines to try, in order; espeak-ng then flite by default. */
  engines?: readonly TtsEngine[];
  /** espeak-ng voice (e.g. `en-us`) or flite voice (e.g. `slt`). */
  voice?: string;
  /** Speaking rate in words per minute (espeak-ng only). */
  wordsPerMinute?: number;
}

const DEFAULT_VOICES: Readonly<Record<TtsEngine, string>> = { 'espeak-ng': 'en', flite: 'slt' };
const local = new LocalSynthesizer();

/**
 * Speech for `text` as 8 kHz mono 16-bit PCM, ready for G.711, from the local engines (no network,
 * no model download); falls back to the next engine on failure.
 */
export async function synthesize(text: string, options: SynthesizeOptions = {}): Promise<Int16Array> {
  if (!/[\p{L}\p{N}]/u.test(text)) throw new SpeechError('nothing to say: the text is empty');
  const engine = options.wordsPerMinute
    ? new LocalSynthesizer({ wordsPerMinute: options.wordsPerMinute })
    : local;
  const attempts = (options.engines ?? (['espeak-ng', 'flite'] as const)).map((name) => ({
    engine: name,
    voice: options.voice ?? DEFAULT_VOICES[name],
  }));
  const pcm = await collectSpeech(engine.speak(text, { language: options.voice ?? 'en', attempts }));
  if (pcm.length === 0) throw new SpeechError('speech synthesis made no audio');
  return pcm;
}
