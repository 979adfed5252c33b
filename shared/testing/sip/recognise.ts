import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { readPcmWav } from './audio';

// What a recording says, as far as a test needs to know: pocketsphinx (Debian's, en-US model) with
// a grammar of the phrases that may be in it. Generic dictation is useless on synthetic telephone
// speech (see the voice notes); a grammar of expected phrases is reliable enough for slt's voice.

const run = promisify(execFile);
const MODEL = '/usr/share/pocketsphinx/model/en-us';
/** What the model was trained on: 16 kHz mono 16-bit. */
const PCM_16K = ['-r', '16000', '-c', '1', '-b', '16'];

export interface RecogniseOptions {
  /** Decode from here (ms into the recording; default its start). */
  fromMs?: number;
  /** Decode up to here (ms into the recording; default `fromMs` + `maxSeconds`). */
  toMs?: number;
  /** At most this much is decoded (default 120 s): the input is bounded. */
  maxSeconds?: number;
  /** The whole run (resampling and decoding) is killed after this (default 60 s). */
  timeoutMs?: number;
}

/** A phrase as the grammar and the dictionary spell it: lower case words, no punctuation. */
export function phraseWords(phrase: string): string[] {
  return phrase
    .toLowerCase()
    .replace(/[^a-z' ]+/g, ' ')
    .split(' ')
    .map((w) => w.replace(/^'+|'+$/g, ''))
    .filter((w) => w.length > 0);
}

let dictionary: Promise<Map<string, string[]>> | undefined;

/** The model's pronunciation dictionary, word -> its lines (alternatives are `word(2)` ...). */
function loadDictionary(): Promise<Map<string, string[]>> {
  dictionary ??= readFile(path.join(MODEL, 'cmudict-en-us.dict'), 'utf8').then((text) => {
    const words = new Map<string, string[]>();
    for (const line of text.split('\n')) {
      const head = line.slice(0, line.indexOf(' '));
      const word = head.replace(/\(\d+\)$/, '');
      if (word) words.set(word, [...(words.get(word) ?? []), line]);
    }
    return words;
  });
  return dictionary;
}

/**
 * The words pocketsphinx heard in `wavPath` (any rate; resampled to 16 kHz mono), decoded against a
 * grammar of one or more of `phrases` in a row, utterance by utterance, joined with single spaces
 * ('' when it heard nothing). Give it the phrases that should be there and a few that should not:
 * the grammar forces every sound onto some phrase. Throws on a word the model cannot say.
 */
export async function recognise(
  wavPath: string,
  phrases: readonly string[],
  options: RecogniseOptions = {},
): Promise<string> {
  const alternatives = [...new Set(phrases.map((p) => phraseWords(p).join(' ')).filter(Boolean))];
  if (alternatives.length === 0) throw new Error('recognise: no phrases to listen for');
  const words = await loadDictionary();
  const used = [...new Set(alternatives.flatMap((a) => a.split(' ')))];
  const unknown = used.filter((w) => !words.has(w));
  if (unknown.length > 0)
    throw new Error(`recognise: not in the pocketsphinx dictionary: ${unknown.join(', ')}`);

  const dir = await mkdtemp(path.join(tmpdir(), 'recognise-'));
  try {
    const grammar = path.join(dir, 'phrases.gram');
    const dict = path.join(dir, 'phrases.dict');
    const audio = path.join(dir, 'audio-16k.wav');
    await writeFile(
      grammar,
      `#JSGF V1.0;\ngrammar phrases;\npublic <said> = <phrase>+;\n<phrase> = ${alternatives.join(' | ')};\n`,
    );
    // Only the words used: the full dictionary takes most of a second to load.
    await writeFile(dict, `${used.flatMap((w) => words.get(w)!).join('\n')}\n`);
    const timeout = options.timeoutMs ?? 60_000;
    const deadline = Date.now() + timeout;
    // Every step gets what is left of the one deadline.
    const limits = () => ({
      killSignal: 'SIGKILL' as const,
      maxBuffer: 1 << 20,
      timeout: Math.max(1, deadline - Date.now()),
    });
    const clean = path.join(dir, 'clean-16k.wav');
    const noise = path.join(dir, 'noise-16k.wav');
    const from = Math.max(0, options.fromMs ?? 0) / 1000;
    const length = Math.min(
      options.maxSeconds ?? 120,
      (options.toMs ?? Number.POSITIVE_INFINITY) / 1000 - from,
    );
    if (!(length > 0))
      throw new Error(`recognise: nothing to decode between ${options.fromMs} and ${options.toMs} ms`);
    await run('sox', [wavPath, ...PCM_16K, clean, 'trim', String(from), String(length)], limits()).catch(
      (e: Error) => {
        throw new Error(`recognise: sox could not read ${wavPath}: ${e.message}`);
      },
    );
    // Faint noise under it: on stretches of digital zero (G.711 silence) pocketsphinx's feature
    // normalisation breaks and it hears words that are not there (measured: "goodbye" in silence).
    const seconds = (await readPcmWav(clean)).channels[0]!.length / 16000;
    if (seconds < 0.1) return '';
    await run(
      'sox',
      ['-n', ...PCM_16K, noise, 'synth', String(seconds), 'whitenoise', 'vol', '0.002'],
      limits(),
    );
    await run('sox', ['-m', clean, noise, audio], limits());
    const decoded = await run(
      'pocketsphinx_continuous',
      [
        '-infile',
        audio,
        '-hmm',
        path.join(MODEL, 'en-us'),
        '-dict',
        dict,
        '-jsgf',
        grammar,
        '-logfn',
        '/dev/null',
      ],
      limits(),
    ).catch((e: Error & { killed?: boolean }) => {
      throw new Error(
        e.killed
          ? `recognise: pocketsphinx took longer than ${timeout} ms`
          : `recognise: pocketsphinx failed: ${e.message}`,
      );
    });
    return decoded.stdout.split(/\s+/).filter(Boolean).join(' ');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
