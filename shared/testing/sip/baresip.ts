import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freeUdpAndTcpPort, waitForListener } from './sipp';

// baresip as a person on loopback (docs in the voice notes): auto-answers, speaks `wav` (8 kHz mono)
// through its aufile source, and records both directions with sndfile.

const run = promisify(execFile);

export interface Baresip {
  uri: string;
  /** The WAV it plays into the call. */
  played: string;
  /** What it heard (`dump-*-dec.wav`) once the call ended, when there is one. */
  heard(): Promise<string | undefined>;
  /** Types `keys` on its console: during a call its menu sends each digit as RFC 4733 DTMF. */
  press(keys: string): void;
  /** The telephone events it received so far, one digit per key (baresip 1.0.0 prints each). */
  receivedDtmf(): string;
  stop(): Promise<void>;
}

/**
 * An 8 kHz mono WAV of `text` spoken by espeak-ng, in `dir`, then `silenceSeconds` of silence:
 * baresip hangs up when its aufile source runs out, so the silence sets how long it stays.
 */
export async function speechWav(dir: string, text: string, silenceSeconds: number): Promise<string> {
  const raw = path.join(dir, 'speech-22k.wav');
  const out = path.join(dir, 'speech-8k.wav');
  await run('espeak-ng', ['-w', raw, text]);
  await run('sox', [raw, '-r', '8000', '-c', '1', '-b', '16', out, 'pad', '0', String(silenceSeconds)]);
  return out;
}

/** A running headless baresip, before anything about what it says. */
export interface BaresipProcess {
  child: ChildProcess;
  /** `sip:127.0.0.1:<port>`. */
  uri: string;
  /** Its config folder (removed by `remove`). */
  dir: string;
  /** Where sndfile writes `dump-*-enc.wav` (what it sent) and `dump-*-dec.wav` (what it heard). */
  records: string;
  /** Calls `listener` with each line it prints from now on (its status line ends in \r: a line too). */
  onLine(listener: (line: string) => void): void;
  /** The tail of what it printed, for error messages. */
  output(): string;
  exited: Promise<void>;
  /** Ends it (SIGTERM) and removes its folder. */
  remove(): Promise<void>;
}

/**
 * Starts baresip listening on a free loopback port, auto-answering as `user`, with `source` (an
 * 8 kHz mono WAV) as its aufile source, and its menu reading commands on stdin.
 */
export async function launchBaresip(options: { source: string; user?: string }): Promise<BaresipProcess> {
  // baresip also binds TCP on its port and TLS on the port above it; another test process can take
  // either between the probe and the bind, so a start that lost that race is tried on a fresh port.
  for (let attempt = 1; ; attempt++) {
    try {
      return await launchOn(await freeUdpAndTcpPort(), options);
    } catch (error) {
      if (attempt >= 5 || !/Address already in use/.test(String(error))) throw error;
    }
  }
}

/** baresip prints "baresip is ready." within a second of starting; this bounds a start that hangs. */
async function withStartDeadline(ready: Promise<void>, output: () => string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`baresip was not ready within 10 s: ${output().slice(-1_000)}`)),
      10_000,
    );
  });
  try {
    await Promise.race([ready, late]);
  } finally {
    clearTimeout(timer);
  }
}

async function launchOn(port: number, options: { source: string; user?: string }): Promise<BaresipProcess> {
  const dir = await mkdtemp(path.join(tmpdir(), 'baresip-'));
  const records = path.join(dir, 'rec');
  await mkdir(records);
  const config = [
    `sip_listen 127.0.0.1:${port}`,
    'audio_player aubridge,x',
    `audio_source aufile,${options.source}`,
    'audio_alert aubridge,x',
    'module_path /usr/lib/baresip/modules',
    'module stdio.so',
    'module g711.so',
    'module aufile.so',
    'module aubridge.so',
    'module sndfile.so',
    'module_app account.so',
    'module_app menu.so',
    `snd_path ${records}`,
    '',
  ].join('\n');
  await writeFile(path.join(dir, 'config'), config);
  await writeFile(
    path.join(dir, 'accounts'),
    `<sip:${options.user ?? '+15550002222'}@127.0.0.1:${port}>;auth_pass=none;answermode=auto;regint=0\n`,
  );
  const child: ChildProcess = spawn('baresip', ['-f', dir], { stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  const keep = (c: Buffer) => {
    output = (output + c.toString()).slice(-20_000);
  };
  // Line by line, so that a bounded `output` cannot lose what a listener waits for.
  const listeners: ((line: string) => void)[] = [];
  let partial = '';
  child.stdout?.on('data', (c: Buffer) => {
    const lines = (partial + c.toString()).split(/[\r\n]/);
    partial = lines.pop()!.slice(-1000);
    for (const line of lines) for (const listener of listeners) listener(line);
  });
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // Ready once it says so: its UDP port is bound before TCP and TLS, whose bind can still fail
  // (then it prints "init failed" and stops, with the UDP port briefly listening).
  const ready = new Promise<void>((resolve, reject) => {
    listeners.push((line) => {
      if (/baresip is ready/.test(line)) resolve();
      else if (/init failed/.test(line)) reject(new Error(`baresip did not start: ${output.slice(-1_000)}`));
    });
    void exited.then(() => reject(new Error(`baresip exited while starting: ${output.slice(-1_000)}`)));
  });
  ready.catch(() => {});
  try {
    await waitForListener(port, 'udp', child, () => output);
    await withStartDeadline(ready, () => output);
  } catch (error) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    child,
    uri: `sip:127.0.0.1:${port}`,
    dir,
    records,
    onLine: (listener) => {
      listeners.push(listener);
    },
    output: () => output,
    exited,
    remove: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export async function startBaresip(text: string, silenceSeconds = 20): Promise<Baresip> {
  const speech = await mkdtemp(path.join(tmpdir(), 'baresip-speech-'));
  const played = await speechWav(speech, text, silenceSeconds);
  const baresip = await launchBaresip({ source: played });
  // baresip prints "received event: '5' (end=0)" as a key starts, "(end=1)" as it ends.
  let received = '';
  baresip.onLine((line) => {
    received += /received event: '([0-9*#A-D])' \(end=0\)/.exec(line)?.[1] ?? '';
  });
  return {
    uri: baresip.uri,
    played,
    heard: async () => {
      const files = await readdir(baresip.records);
      const dec = files.find((f) => f.endsWith('-dec.wav'));
      return dec ? path.join(baresip.records, dec) : undefined;
    },
    press: (keys) => {
      baresip.child.stdin?.write(keys);
    },
    receivedDtmf: () => received,
    stop: async () => {
      await baresip.remove();
      await rm(speech, { recursive: true, force: true });
    },
  };
}
