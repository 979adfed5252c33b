// What pocketsphinx_continuous prints for an utterance decoded with `-backtrace yes`: the
// hypothesis on stdout (one line per segment its VAD cut), and on its log a table per segment:
//
//   word                 start end   pprob ascr       lscr       lback
//   <sil>                0     56    1.000 -1231      -337       1
//   yes                  57    83    1.000 -1251      0          1
//   (NULL)               83    83    1.000 0          0          1
//
// start/end are 10 ms frames; ascr is the word's acoustic score (log base 1.0001, scaled down by
// 2^10 as pocketsphinx keeps it), relative to the best-scoring model state of each frame.

/** One entry of a backtrace: a word, a filler (`<sil>`, `[NOISE]`, `um`), or a grammar step `(NULL)`. */
export interface DecodedWord {
  /** As printed, without the alternate-pronunciation mark: `interested(2)` is `interested`. */
  word: string;
  /** First and last 10 ms frame. */
  start: number;
  end: number;
  /** Acoustic score, 0 or below; closer to 0 is a better fit. */
  acoustic: number;
}

export interface DecoderOutput {
  /** The segments' hypotheses joined: lower case words, single spaces; '' when nothing matched. */
  text: string;
  /** The backtraces of all segments, in order. */
  words: DecodedWord[];
  /** pocketsphinx said an ERROR (e.g. "Final result does not match the grammar"): the first one. */
  error: string | null;
}

const HEADER = /^word\s+start\s+end\s+pprob\s+ascr\s+lscr\s+lback\s*$/;
const ROW = /^(\S+)\s+(-?\d+)\s+(-?\d+)\s+[\d.]+\s+(-?\d+)\s+(-?\d+)\s+(-?\d+)\s*$/;

export function parseDecoderOutput(stdout: string, log: string): DecoderOutput {
  const text = stdout
    .split('\n')
    .map((line) => line.trim().toLowerCase())
    .filter((line) => /^[a-z' ]+$/.test(line))
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim();
  const words: DecodedWord[] = [];
  let error: string | null = null;
  let inTable = false;
  for (const line of log.split('\n')) {
    if (HEADER.test(line)) {
      inTable = true;
      continue;
    }
    const row = inTable ? ROW.exec(line) : null;
    if (row) {
      words.push({
        word: row[1]!.replace(/\(\d+\)$/, ''),
        start: Number(row[2]),
        end: Number(row[3]),
        acoustic: Number(row[4]),
      });
      continue;
    }
    inTable = false;
    if (error === null && line.startsWith('ERROR:')) error = line.slice('ERROR:'.length).trim();
  }
  return { text, words, error };
}
