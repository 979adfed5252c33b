import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  type Recognition,
  type RecognitionRequest,
  type RecognitionStream,
  SpeechError,
  type SpeechRecognizer,
} from '../../conversation/types';
import { confidenceOf } from './domain/confidence';
import { parseDecoderOutput } from './domain/decoder-output';
import { buildGrammar } from './domain/grammar';
import { upsampleForModel } from './domain/upsample';
import { loadDictionary } from './lexicon';
import { narrowbandModel } from './narrowband-model';

export const DEFAULT_MODEL_DIR = '/usr/share/pocketsphinx/model/en-us/en-us';
export const DEFAULT_DICTIONARY = '/usr/share/pocketsphinx/model/en-us/cmudict-en-us.dict';

export interface PocketsphinxOptions {
  /** Default `pocketsphinx_continuous` from PATH (Debian package `pocketsphinx`). */
  binary?: string;
  /** Acoustic model directory; default the en-us model of `pocketsphinx-en-us`. */
  modelDir?: string;
  /** Pronunciation dictionary the grammar's words are checked against and taken from. */
  dictionary?: string;
  /**
   * How 8 kHz audio meets the 16 kHz model: `upsample` (the default: measured far better) or
   * `narrowband` (`-samprate 8000 -nfft 256` with the filter bank cut at 3.8 kHz).
   */
  input?: 'upsample' | 'narrowband';
  /** Audio kept per utterance; the rest is dropped (30 s). */
  maxUtteranceMs?: number;
  /** A stream not finished this long after open() is killed (120 s: agent's turn plus silence). */
  maxOpenMs?: number;
  /** finish() fails when the decoder has not answered this long after the end of input (10 s). */
  finishTimeoutMs?: number;
  /** Word insertion penalty (`-wip`); lower means fewer inserted words (1e-2, tuned on tests). */
  wordInsertionPenalty?: number;
  /** Told the words of a turn's names and phrases that the dictionary lacks (they are not heard). */
  onUnknownWords?: (words: readonly string[]) => void;
}

const SAMPLE_RATE = 8000;
/** The decoder prints one line per segment and a backtrace: far below these. */
const MAX_STDOUT_BYTES = 64 * 1024;
const MAX_LOG_BYTES = 2 * 1024 * 1024;
const NO_MATCH = /does not match the grammar/;

/** English only: the one acoustic model installed is US English; other accents are heard less well. */
export function isEnglish(language: string): boolean {
  return /^en(?:[-_][a-z0-9]{1,8})*$/i.test(language.trim());
}

/**
 * Speech recognition with pocketsphinx_continuous (local, no network), one process per utterance,
 * constrained by a grammar built from what the turn expects. open() writes the grammar and starts
 * the process while the agent is still talking (model loading is off the turn's latency); write()
 * streams audio into it as it is heard; finish() closes its input and reads the hypothesis.
 */
export class PocketsphinxRecognizer implements SpeechRecognizer {
  readonly name = 'pocketsphinx';
  private readonly settings: Required<Omit<PocketsphinxOptions, 'onUnknownWords'>>;

  constructor(private readonly options: PocketsphinxOptions = {}) {
    this.settings = {
      binary: options.binary ?? 'pocketsphinx_continuous',
      modelDir: options.modelDir ?? DEFAULT_MODEL_DIR,
      dictionary: options.dictionary ?? DEFAULT_DICTIONARY,
      input: options.input ?? 'upsample',
      maxUtteranceMs: options.maxUtteranceMs ?? 30_000,
      maxOpenMs: options.maxOpenMs ?? 120_000,
      finishTimeoutMs: options.finishTimeoutMs ?? 10_000,
      wordInsertionPenalty: options.wordInsertionPenalty ?? 1e-2,
    };
  }

  supports(language: string): boolean {
    return isEnglish(language);
  }

  /** Reads the dictionary now (once per process) so that the first turn does not wait for it. */
  async prepare(): Promise<void> {
    await loadDictionary(this.settings.dictionary);
    await checkModel(this.settings.modelDir);
  }

  open(request: RecognitionRequest): RecognitionStream {
    if (!this.supports(request.language)) {
      throw new SpeechError(`pocketsphinx recognises English only, not ${JSON.stringify(request.language)}`);
    }
    return new PocketsphinxStream(request, this.settings, this.options.onUnknownWords);
  }
}

type Settings = Required<Omit<PocketsphinxOptions, 'onUnknownWords'>>;

class PocketsphinxStream implements RecognitionStream {
  private child: ChildProcess | null = null;
  private dir: string | null = null;
  private readonly pending: Buffer[] = [];
  private samples = 0;
  private readonly maxSamples: number;
  private stdout = '';
  private log = '';
  private failure: SpeechError | null = null;
  private ended = false;
  private cancelled = false;
  private readonly exited: Promise<void>;
  private markExited!: () => void;
  private readonly ready: Promise<void>;
  private readonly lifetime: NodeJS.Timeout;

  constructor(
    private readonly request: RecognitionRequest,
    private readonly settings: Settings,
    private readonly onUnknownWords?: (words: readonly string[]) => void,
  ) {
    this.maxSamples = Math.round((settings.maxUtteranceMs / 1000) * SAMPLE_RATE);
    this.exited = new Promise((resolve) => {
      this.markExited = resolve;
    });
    this.lifetime = setTimeout(() => {
      this.fail(new SpeechError(`no end of utterance within ${settings.maxOpenMs} ms`));
      this.dispose();
    }, settings.maxOpenMs);
    this.lifetime.unref();
    this.ready = this.start();
    // finish() reports a failure; until it is called, an unhandled rejection would crash.
    this.ready.catch(() => {});
  }

  write(pcm: Int16Array): void {
    if (this.ended || this.cancelled || this.failure) return;
    const room = this.maxSamples - this.samples;
    if (room <= 0) return;
    const kept = pcm.length > room ? pcm.subarray(0, room) : pcm;
    this.samples += kept.length;
    const audio = this.settings.input === 'upsample' ? upsampleForModel(kept) : kept;
    const bytes = Buffer.from(audio.buffer, audio.byteOffset, audio.byteLength);
    if (this.child?.stdin) this.child.stdin.write(bytes);
    else this.pending.push(Buffer.from(bytes));
  }

  async finish(): Promise<Recognition> {
    if (this.cancelled) throw new SpeechError('recognition was cancelled');
    this.ended = true;
    try {
      await this.ready;
      if (this.failure) throw this.failure;
      this.child!.stdin!.end();
      const timer = setTimeout(
        () =>
          this.fail(
            new SpeechError(`pocketsphinx gave no result within ${this.settings.finishTimeoutMs} ms`),
          ),
        this.settings.finishTimeoutMs,
      );
      await this.exited;
      clearTimeout(timer);
      if (this.failure) throw this.failure;
      const output = parseDecoderOutput(this.stdout, this.log);
      // "Final result does not match the grammar" is the decoder finding no grammar path: nothing
      // heard. Any other error (a grammar or dictionary it refused) means it never really listened.
      if (output.error && !NO_MATCH.test(output.error))
        throw new SpeechError(`pocketsphinx: ${output.error}`);
      return { text: output.text, confidence: confidenceOf(output.text, output.words) };
    } catch (err) {
      if (this.failure) throw this.failure;
      throw err instanceof SpeechError
        ? err
        : new SpeechError(`pocketsphinx failed: ${(err as Error).message}`);
    } finally {
      this.dispose();
    }
  }

  cancel(): void {
    if (this.cancelled) return;
    this.cancelled = true;
    this.dispose();
  }

  private async start(): Promise<void> {
    const { settings, request } = this;
    const [dictionary] = await Promise.all([
      loadDictionary(settings.dictionary),
      checkModel(settings.modelDir),
    ]);
    const grammar = buildGrammar({ expect: request.expect, names: request.names }, dictionary);
    if (grammar.unknown.length > 0) this.onUnknownWords?.(grammar.unknown);
    const modelArgs =
      settings.input === 'upsample'
        ? ['-hmm', settings.modelDir]
        : ['-hmm', await narrowbandModel(settings.modelDir), '-samprate', '8000', '-nfft', '256'];
    this.dir = await mkdtemp(path.join(tmpdir(), 'stt-'));
    const grammarFile = path.join(this.dir, 'turn.jsgf');
    const dictionaryFile = path.join(this.dir, 'turn.dict');
    await Promise.all([
      writeFile(grammarFile, grammar.jsgf),
      // Only the grammar's words: loading 135,000 entries cost the decoder's start more than the model.
      writeFile(dictionaryFile, dictionary.subset(grammar.words)),
    ]);
    if (this.cancelled || this.failure) {
      this.dispose();
      return;
    }
    // Node's child stdin is a socket, which pocketsphinx cannot open as `-infile /dev/stdin`; `cat`
    // turns it into a pipe. Its own process group, so that a kill reaches both.
    const child = spawn(
      '/bin/sh',
      [
        '-c',
        'cat | exec "$0" "$@"',
        settings.binary,
        ...modelArgs,
        '-dict',
        dictionaryFile,
        '-jsgf',
        grammarFile,
        '-infile',
        '/dev/stdin',
        // Our VAD already cut the utterance: one decode over all of it, never split mid-sentence.
        '-remove_silence',
        'no',
        '-wip',
        String(settings.wordInsertionPenalty),
        '-backtrace',
        'yes',
      ],
      { stdio: ['pipe', 'pipe', 'pipe'], detached: true },
    );
    this.child = child;
    const spawned = new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', (err) => {
        const error = new SpeechError(`${settings.binary} could not start: ${err.message}`);
        this.fail(error);
        reject(error);
      });
    });
    child.stdin!.on('error', () => {}); // EPIPE when the decoder died: its exit reports why.
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      this.stdout += chunk;
      if (this.stdout.length > MAX_STDOUT_BYTES) this.fail(new SpeechError('pocketsphinx printed too much'));
    });
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      this.log += chunk;
      if (this.log.length > MAX_LOG_BYTES) this.fail(new SpeechError('pocketsphinx logged too much'));
    });
    child.once('close', (code, signal) => {
      if (code !== 0 && !this.failure && !this.cancelled) {
        const reason = lastError(this.log) ?? (signal ? `killed by ${signal}` : `exit code ${code}`);
        this.failure = new SpeechError(
          code === 127
            ? `${settings.binary} is not installed (Debian package pocketsphinx)`
            : `pocketsphinx failed: ${reason}`,
        );
      }
      this.markExited();
    });
    await spawned;
    for (const bytes of this.pending.splice(0)) child.stdin!.write(bytes);
  }

  private fail(error: SpeechError): void {
    this.failure ??= error;
    this.kill();
  }

  /** The shell, cat and the decoder: the whole process group. */
  private kill(): void {
    const pid = this.child?.pid;
    if (pid === undefined || this.child!.exitCode !== null || this.child!.signalCode !== null) return;
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }

  private dispose(): void {
    clearTimeout(this.lifetime);
    this.kill();
    if (!this.child) this.markExited();
    const dir = this.dir;
    this.dir = null;
    if (dir) void rm(dir, { recursive: true, force: true });
  }
}

async function checkModel(modelDir: string): Promise<void> {
  try {
    await stat(path.join(modelDir, 'mdef'));
  } catch {
    throw new SpeechError(
      `no pocketsphinx acoustic model at ${modelDir} (Debian package pocketsphinx-en-us)`,
    );
  }
}

function lastError(log: string): string | null {
  const errors = log.split('\n').filter((line) => line.startsWith('ERROR:') || line.startsWith('FATAL'));
  return errors.at(-1)?.slice(0, 300) ?? null;
}
