import type { DecodedWord } from './decoder-output';
import { FILLERS } from './vocabulary';

// pocketsphinx 0.8 gives no usable confidence in grammar mode: its posterior column is always 1.0
// (the FSG search builds no lattice). So the confidence here is a heuristic from what it does
// print, calibrated on flite and espeak-ng speech through 8 kHz G.711 (see the tests' table):
//
// 1. fit: the acoustic score per frame of the recognised words (not silence or fillers). Audio the
//    words explain scored -33 to -58 per frame; out-of-grammar sentences and poorly matched
//    voices -54 to -76. Mapped linearly from FIT_WORST (0) to FIT_BEST (1).
// 2. pieces: the grammar is a loop of answer parts; speech it cannot explain comes out as a chain
//    of one-word parts ("dylan alan one billion debra donna"), a real answer as one to three
//    parts. Each part beyond MAX_PLAIN_PARTS divides the confidence.
// 3. stretched words: a word held over LONGEST_WORD_FRAMES (1.2 s) is a hum or noise the
//    decoder had to put somewhere ("ann" for 1.9 s of 120 Hz tone): confidence is cut.
// 4. fillers: the share of the speech time that went to fillers ([NOISE], "um") lowers it.
//
// The product is in 0..1 and 0 when nothing was recognised. It ranks, it is not a probability:
// on the test speech (stt-measure.test.ts), flite's phrases heard right scored 0.59-1.0, sentences
// outside the grammar, noise and hum 0-0.3; espeak-ng's poorly matched voice 0.13-0.85, right or
// wrong, so a low value says "confirm", not "wrong".

export const FIT_BEST = -30;
export const FIT_WORST = -80;
export const MAX_PLAIN_PARTS = 3;
export const LONGEST_WORD_FRAMES = 120;

const SILENCE = new Set(['<sil>', '<s>', '</s>']);
const STEP = '(NULL)';
const FILLER_WORDS = new Set(FILLERS);

function isFiller(word: string): boolean {
  return word.startsWith('[') || FILLER_WORDS.has(word);
}

/** Confidence in 0..1 of a recognition from its backtrace; 0 when `text` is ''. */
export function confidenceOf(text: string, words: readonly DecodedWord[]): number {
  if (text === '') return 0;
  let contentFrames = 0;
  let contentScore = 0;
  let fillerFrames = 0;
  let parts = 0;
  let partOpen = false;
  let stretched = false;
  for (const w of words) {
    if (w.word === STEP) {
      partOpen = false;
      continue;
    }
    if (SILENCE.has(w.word)) continue;
    const frames = Math.max(1, w.end - w.start + 1);
    if (isFiller(w.word)) {
      fillerFrames += frames;
      continue;
    }
    contentFrames += frames;
    contentScore += w.acoustic;
    if (frames > LONGEST_WORD_FRAMES) stretched = true;
    if (!partOpen) {
      parts += 1;
      partOpen = true;
    }
  }
  // Text without a backtrace (a decoder that printed none): the grammar matched, nothing more known.
  if (contentFrames === 0) return words.length === 0 ? 0.5 : 0;
  const perFrame = contentScore / contentFrames;
  const fit = clamp((perFrame - FIT_WORST) / (FIT_BEST - FIT_WORST));
  const pieces = parts <= MAX_PLAIN_PARTS ? 1 : MAX_PLAIN_PARTS / parts;
  const fillers = contentFrames / (contentFrames + fillerFrames);
  const confidence = fit * pieces * fillers * (stretched ? 0.3 : 1);
  return Math.round(confidence * 100) / 100;
}

function clamp(x: number): number {
  return Math.min(1, Math.max(0, x));
}
