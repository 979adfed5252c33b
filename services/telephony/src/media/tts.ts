import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** Text longer than this is refused: one agent turn, not a book. */
const MAX_TEXT_CHARS = 4000;
/** Ten minutes of 8 kHz 16-bit audio: more means something went wrong. */
const MAX_OUTPUT_BYTES = 8000 * 2 * 600;
const TIMEOUT_MS = 30_000;

export type TtsEngine = 'espeak-ng' | 'flite';

export interface SynthesizeOptions {
  /** Engines to try, in order; espeak-ng then flite by default. */
  engines?: readonly TtsEngine[];
  /** espeak-ng voice (e.g. `en-us`) or flite voice (e.g. `slt`). */
  voice?: string;
  /** Speaking rate in words per minute (espeak-ng only). */
  wordsPerMinute?: number;
}

export class TtsError extends Error {
  override readonly name = 'TtsError';
}

/**
 * Speech for `text` as 8 kHz mono 16-bit PCM, ready for G.711. Runs the local engines (no
 * network, no model download) and resamples with sox; falls back to the next engine on failure.
 */
export async function synthesize(text: string, options: SynthesizeOptions = {}): Promise<Int16Array> {
  const clean = text.replace(/\p{Cc}/gu, ' ').trim();
  if (!clean) throw new TtsError('nothing to say: the text is empty');
  if (clean.length > MAX_TEXT_CHARS) throw new TtsError(`text longer than ${MAX_TEXT_CHARS} characters`);
  const failures: string[] = [];
  for (const engine of options.engines ?? (['espeak-ng', 'flite'] as const)) {
    try {
      const pcm = engine === 'espeak-ng' ? await espeak(clean, options) : await flite(clean, options);
      if (pcm.length > 0) return pcm;
      failures.push(`${engine}: no audio`);
    } catch (err) {
      failures.push(`${engine}: ${(err as Error).message}`);
    }
  }
  throw new TtsError(`speech synthesis failed (${failures.join('; ')})`);
}

async function espeak(text: string, options: SynthesizeOptions): Promise<Int16Array> {
  const args = ['--stdout'];
  if (options.voice) args.push('-v', options.voice);
  if (options.wordsPerMinute) args.push('-s', String(Math.round(options.wordsPerMinute)));
  // The text goes on stdin: never on the command line, where a leading dash would be an option.
  // espeak-ng quietly speaks its default voice for an unknown one: that must fall back instead.
  if (options.voice && !(await espeakVoices()).has(options.voice.split('+')[0]!.toLowerCase())) {
    throw new Error(`unknown voice ${JSON.stringify(options.voice)}`);
  }
  const { stdout: wav } = await run('espeak-ng', args, Buffer.from(text));
  return toPcm8k((await run('sox', ['-t', 'wav', '-', ...RAW_8K_OUT], wav)).stdout);
}

let voices: Promise<Set<string>> | undefined;

/** Languages, voice names and voice files espeak-ng knows, read once per process. */
function espeakVoices(): Promise<Set<string>> {
  voices ??= run('espeak-ng', ['--voices']).then(({ stdout }) => {
    const names = new Set<string>();
    for (const line of stdout.toString().split('\n').slice(1)) {
      const [, language, , name, file] = line.trim().split(/\s+/);
      for (const n of [language, name, file, file?.split('/').pop()]) if (n) names.add(n.toLowerCase());
    }
    return names;
  });
  return voices;
}

async function flite(text: string, options: SynthesizeOptions): Promise<Int16Array> {
  const dir = await mkdtemp(path.join(tmpdir(), 'tts-'));
  try {
    const textFile = path.join(dir, 'text.txt');
    const wavFile = path.join(dir, 'speech.wav');
    await writeFile(textFile, text);
    await run('flite', ['-voice', options.voice ?? 'slt', '-f', textFile, '-o', wavFile]);
    return toPcm8k((await run('sox', [wavFile, ...RAW_8K_OUT])).stdout);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const RAW_8K_OUT = ['-t', 'raw', '-e', 'signed-integer', '-b', '16', '-c', '1', '-L', '-', 'rate', '8000'];

function toPcm8k(raw: Buffer): Int16Array {
  const samples = new Int16Array(Math.floor(raw.length / 2));
  for (let i = 0; i < samples.length; i++) samples[i] = raw.readInt16LE(i * 2);
  return samples;
}

/** Runs a tool with bounded time and output; rejects on a non-zero exit. */
function run(command: string, args: string[], stdin?: Buffer): Promise<{ stdout: Buffer; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let bytes = 0;
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), TIMEOUT_MS);
    child.stdout.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > MAX_OUTPUT_BYTES) child.kill('SIGKILL');
      else out.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 2000) stderr += chunk.toString();
    });
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve({ stdout: Buffer.concat(out), stderr });
      else reject(new Error(`${command} exited with ${signal ?? code}: ${stderr.trim().slice(0, 300)}`));
    });
    child.stdin.on('error', () => {
      // the tool exited before reading everything; its exit code tells the story
    });
    child.stdin.end(stdin);
  });
}
