import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

// What a scripted far end says: 8 kHz mono 16-bit WAVs (the rate of a G.711 call, so baresip's
// aufile needs no resampling), made once per process and kept in one folder removed at exit.

const run = promisify(execFile);
const limits = { timeout: 30_000, killSignal: 'SIGKILL' as const, maxBuffer: 1 << 20 };

/** flite's `slt` (the default: pocketsphinx recognises it best) or `kal`, or espeak-ng's default voice. */
export type CalleeVoice = 'slt' | 'kal' | 'espeak';

let folder: string | undefined;
function clipDir(): string {
  if (!folder) {
    const made = mkdtempSync(path.join(tmpdir(), 'callee-clips-'));
    process.once('exit', () => rmSync(made, { recursive: true, force: true }));
    folder = made;
  }
  return folder;
}

const made = new Map<string, Promise<string>>();
let counter = 0;

/** The clip for `key`, made by `make(out)` the first time (a failed make is forgotten). */
function cached(key: string, make: (out: string) => Promise<void>): Promise<string> {
  let clip = made.get(key);
  if (!clip) {
    const out = path.join(clipDir(), `clip-${++counter}.wav`);
    clip = make(out).then(() => out);
    clip.catch(() => made.delete(key));
    made.set(key, clip);
  }
  return clip;
}

const to8k = (input: string, out: string, ...effects: string[]) =>
  run('sox', [input, '-r', '8000', '-c', '1', '-b', '16', out, ...effects], limits);

/** `text` spoken in `voice`, 8 kHz mono, as the engine made it (its own short lead-in and tail of quiet). */
export function speechClip(text: string, voice: CalleeVoice = 'slt'): Promise<string> {
  if (text.trim() === '') return Promise.reject(new Error('speechClip: no text'));
  return cached(`speech\0${voice}\0${text}`, async (out) => {
    const raw = `${out}.raw.wav`;
    if (voice === 'espeak') await run('espeak-ng', ['-w', raw, '--', text], limits);
    else await run('flite', ['-voice', voice, '-t', text, '-o', raw], limits);
    await to8k(raw, out);
    rmSync(raw, { force: true });
  });
}

/** A sine tone of `hz` for `ms`, at half of full scale. */
export function toneClip(hz: number, ms: number): Promise<string> {
  if (!(hz > 0 && hz < 4000 && ms > 0))
    return Promise.reject(new Error(`toneClip: no tone of ${hz} Hz for ${ms} ms`));
  return cached(`tone\0${hz}\0${ms}`, (out) =>
    run(
      'sox',
      [
        '-n',
        '-r',
        '8000',
        '-c',
        '1',
        '-b',
        '16',
        out,
        'synth',
        String(ms / 1000),
        'sine',
        String(hz),
        'vol',
        '0.5',
      ],
      limits,
    ).then(() => undefined),
  );
}

/** `seconds` of digital silence. */
export function silenceClip(seconds: number): Promise<string> {
  return cached(`silence\0${seconds}`, (out) =>
    run('sox', ['-n', '-r', '8000', '-c', '1', '-b', '16', out, 'trim', '0', String(seconds)], limits).then(
      () => undefined,
    ),
  );
}

/** Any WAV (`wav`, any rate and channels) as 8 kHz mono, followed by `seconds` of silence. */
export function heldClip(wav: string, seconds: number): Promise<string> {
  return cached(`held\0${wav}\0${seconds}`, (out) =>
    to8k(wav, out, 'pad', '0', String(seconds)).then(() => undefined),
  );
}

/**
 * An answering machine's greeting: `text` spoken, `gapMs` of quiet, then a beep of `beepHz` for
 * `beepMs`. Play it with `say(path)`.
 */
export function voicemailGreeting(
  text: string,
  beepHz = 1000,
  options: { voice?: CalleeVoice; gapMs?: number; beepMs?: number } = {},
): Promise<string> {
  const gapMs = options.gapMs ?? 400;
  const beepMs = options.beepMs ?? 500;
  return cached(
    `voicemail\0${options.voice ?? 'slt'}\0${text}\0${beepHz}\0${gapMs}\0${beepMs}`,
    async (out) => {
      const [speech, gap, beep] = await Promise.all([
        speechClip(text, options.voice),
        silenceClip(gapMs / 1000),
        toneClip(beepHz, beepMs),
      ]);
      await run('sox', [speech, gap, beep, out], limits);
    },
  );
}
