import { describe, expect, it } from 'vitest';
import { confidenceOf } from '../src/speech/stt/domain/confidence';
import { type DecodedWord, parseDecoderOutput } from '../src/speech/stt/domain/decoder-output';
import { upsampleForModel } from '../src/speech/stt/domain/upsample';

// Pure tests of reading pocketsphinx_continuous's output and of the confidence heuristic. The
// sample log is what pocketsphinx 0.8+5prealpha printed for flite's "yes I am interested".

const LOG = `INFO: cmn_live.c(120): Update from < 41.00 -5.29 -0.12 >
INFO: fsg_search.c(853): 248 frames, 35972 HMMs (145/fr), 50507 senones (203/fr), 4271 history entries (17/fr)
INFO: pocketsphinx.c(1168): yes i am interested (-7394)
word                 start end   pprob ascr       lscr       lback
<sil>                0     56    1.000 -1231      -337       1
yes                  57    83    1.000 -1251      0          1
(NULL)               83    83    1.000 0          0          1
i                    84    102   1.000 -762       0          1
am                   103   117   1.000 -470       0          1
interested(2)        118   186   1.000 -2503      0          1
<sil>                187   248   1.000 -503       -337       1
INFO: fsg_search.c(263): TOTAL fsg 0.05 CPU 0.025 xRT
-ceplen 13 13
`;

function word(text: string, start: number, end: number, perFrame: number): DecodedWord {
  return { word: text, start, end, acoustic: perFrame * (end - start + 1) };
}

describe('pocketsphinx output', () => {
  it('reads the hypothesis and the backtrace, without alternate-pronunciation marks', () => {
    const output = parseDecoderOutput('yes i am interested\n', LOG);
    expect(output.text).toBe('yes i am interested');
    expect(output.error).toBeNull();
    expect(output.words.map((w) => w.word)).toEqual([
      '<sil>',
      'yes',
      '(NULL)',
      'i',
      'am',
      'interested',
      '<sil>',
    ]);
    expect(output.words[5]).toEqual({ word: 'interested', start: 118, end: 186, acoustic: -2503 });
  });

  it('joins the segments of an utterance its VAD split, and ignores lines that are not words', () => {
    const output = parseDecoderOutput('call me back\n\ntomorrow\nINFO: noise\n', `${LOG}${LOG}`);
    expect(output.text).toBe('call me back tomorrow');
    expect(output.words).toHaveLength(14);
  });

  it('reports the first error, such as no path through the grammar', () => {
    const output = parseDecoderOutput(
      '',
      'ERROR: "fsg_search.c", line 940: Final result does not match the grammar in frame 216\nERROR: later\n',
    );
    expect(output).toEqual({
      text: '',
      words: [],
      error: '"fsg_search.c", line 940: Final result does not match the grammar in frame 216',
    });
  });
});

describe('confidence from the backtrace', () => {
  const answer = [
    word('<sil>', 0, 30, -10),
    word('please', 31, 60, -40),
    word('stop', 61, 90, -40),
    word('calling', 91, 130, -40),
    word('me', 131, 150, -40),
    word('<sil>', 151, 200, -10),
  ];

  it('is 0 for nothing recognised, and within 0..1 otherwise', () => {
    expect(confidenceOf('', [])).toBe(0);
    expect(confidenceOf('', answer)).toBe(0);
    const c = confidenceOf('please stop calling me', answer);
    expect(c).toBeGreaterThan(0);
    expect(c).toBeLessThanOrEqual(1);
  });

  it('follows how well the words fit the audio, from FIT_WORST to FIT_BEST per frame', () => {
    const at = (perFrame: number) =>
      confidenceOf(
        'please stop calling me',
        answer.map((w) => (w.word === '<sil>' ? w : word(w.word, w.start, w.end, perFrame))),
      );
    expect(at(-30)).toBe(1);
    expect(at(-40)).toBe(0.8);
    expect(at(-55)).toBe(0.5);
    expect(at(-80)).toBe(0);
    expect(at(-200)).toBe(0);
    // silence does not count: a long quiet tail neither helps nor hurts
    expect(confidenceOf('please stop calling me', [...answer, word('<sil>', 201, 900, -2)])).toBe(at(-40));
  });

  it('falls when the answer is a chain of one-word pieces (speech the grammar could not explain)', () => {
    const names = ['dylan', 'alan', 'one', 'billion', 'debra', 'donna'].flatMap((w, i) => [
      word(w, i * 30, i * 30 + 29, -40),
      word('(NULL)', i * 30 + 29, i * 30 + 29, 0),
    ]);
    expect(confidenceOf('dylan alan one billion debra donna', names)).toBe(0.4);
  });

  it('falls when a word is stretched over a hum, and with the share of fillers', () => {
    expect(confidenceOf('ann', [word('ann', 31, 223, -11)])).toBe(0.3);
    const withFillers = [word('um', 0, 99, -40), word('yes', 100, 199, -40)];
    expect(confidenceOf('um yes', withFillers)).toBe(0.4);
  });

  it('gives text the decoder printed without a backtrace a neutral 0.5', () => {
    expect(confidenceOf('yes', [])).toBe(0.5);
  });
});

describe('upsampling for the 16 kHz model', () => {
  it('holds each sample for two output samples', () => {
    expect([...upsampleForModel(Int16Array.from([1, -2, 32767]))]).toEqual([1, 1, -2, -2, 32767, 32767]);
    expect(upsampleForModel(new Int16Array(0))).toHaveLength(0);
  });
});
