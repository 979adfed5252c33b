import { z } from 'zod';
import type { Recognition } from '../../../conversation/types';
import { spokenTokens } from './words';

// The answer of an OpenAI-compatible POST /audio/transcriptions, as far as it matters here:
//   json:          { "text": "Yes, I am interested." }  (gpt-4o-transcribe may add "logprobs")
//   verbose_json:  { "text": ..., "segments": [{ "start", "end", "avg_logprob", "no_speech_prob" }] }

/**
 * Confidence when the server says nothing about it (plain `json` without logprobs): a hosted
 * model's transcript is usually right but unverified; below 1 so that the brain still confirms
 * what matters, above pocketsphinx's typical grammar matches (0.6-0.9) would be dishonest.
 */
export const DEFAULT_CONFIDENCE = 0.7;

/** Longest transcript taken from one utterance (30 s of speech is some 500 characters). */
const MAX_TEXT_CHARS = 5000;

const responseSchema = z.object({
  text: z.string(),
  segments: z
    .array(
      z.object({
        start: z.number().optional(),
        end: z.number().optional(),
        avg_logprob: z.number(),
        no_speech_prob: z.number().optional(),
      }),
    )
    .optional(),
  logprobs: z.array(z.object({ logprob: z.number() })).optional(),
});

export class TranscriptionResponseError extends Error {}

/**
 * The recognition in a transcription response body (already parsed JSON, untrusted): words as
 * the brain reads them (lower case, numbers spelled out like pocketsphinx says them), and a
 * confidence: exp of the mean token log probability (segments weighted by their length), times
 * the chance that the segment held speech at all; DEFAULT_CONFIDENCE when none is given.
 */
export function recognitionFromResponse(body: unknown): Recognition {
  const parsed = responseSchema.safeParse(body);
  if (!parsed.success) throw new TranscriptionResponseError('the response has no "text"');
  const { text, segments, logprobs } = parsed.data;
  const words = spokenTokens(text.slice(0, MAX_TEXT_CHARS))
    .map((word) => word.toLowerCase())
    .join(' ');
  if (words === '') return { text: '', confidence: 0 };
  return { text: words, confidence: round(confidenceOf(segments, logprobs)) };
}

type Segments = z.infer<typeof responseSchema>['segments'];
type Logprobs = z.infer<typeof responseSchema>['logprobs'];

function confidenceOf(segments: Segments, logprobs: Logprobs): number {
  if (segments && segments.length > 0) {
    let weight = 0;
    let sum = 0;
    for (const s of segments) {
      const length = Math.max(0.01, (s.end ?? 0) - (s.start ?? 0));
      const speech = 1 - clamp(s.no_speech_prob ?? 0);
      sum += length * Math.exp(Math.min(0, s.avg_logprob)) * speech;
      weight += length;
    }
    return clamp(sum / weight);
  }
  if (logprobs && logprobs.length > 0) {
    const mean = logprobs.reduce((total, p) => total + Math.min(0, p.logprob), 0) / logprobs.length;
    return clamp(Math.exp(mean));
  }
  return DEFAULT_CONFIDENCE;
}

function clamp(x: number): number {
  return Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0;
}

function round(x: number): number {
  return Math.round(x * 100) / 100;
}
