import { open, readdir } from 'node:fs/promises';
import path from 'node:path';
import { launchBaresip } from './baresip';
import { type CalleeVoice, heldClip, silenceClip, speechClip, toneClip } from './clips';
import {
  dumpSamples,
  type HeardSpeech,
  type HeardSpeechOptions,
  newestDump,
  waitForSpeechInDump,
} from './live-dump';

// baresip as a person a test steers in time: it auto-answers, and its menu's `/ausrc aufile,<path>`
// (baresip 1.0.0, typed on stdin) switches what it says mid-call; the old file is dropped at once.
// aufile ends the call when its file runs out ("menu: audio error (0,end of file)"), so every
// clip is followed by `holdSeconds` of silence: how long the callee stays after its last words.

/** When something was done: `performance.now()` (for intervals) and the wall clock (for records). */
export interface Moment {
  at: number;
  date: Date;
}

/** Where a call's recordings are at a moment: ms from their starts (8 kHz dumps). */
export interface RecordingPosition {
  /** In `sent` (what baresip sent): a clip switched to now starts at most one 20 ms frame later. */
  sentMs: number;
  /** In `heard` (what baresip heard). */
  heardMs: number;
}

/**
 * A command's moment, placed in the call's recordings (`undefined` outside a call). Each switch
 * moves `sent` up to one 20 ms frame ahead of the wall clock (the new source sends its first
 * frame at once), so place later events by these positions rather than by elapsed time.
 */
export interface CommandMoment extends Moment {
  position?: RecordingPosition;
}

export interface ScriptedCalleeOptions {
  /** What it says as it answers: text (in `voice`), an absolute path of a `.wav`, or silence (default). */
  greeting?: string;
  voice?: CalleeVoice;
  /** Silence after each clip before baresip hangs up by itself (default 120 s). */
  holdSeconds?: number;
  /** The account's user part (default +15550002222). */
  user?: string;
}

export interface SayOptions {
  /** Default: the callee's voice. */
  voice?: CalleeVoice;
  /** Hang up when the clip ends (the person says goodbye and puts the phone down). */
  thenHangUp?: boolean;
}

export interface CalleeRecording {
  /** What baresip heard (its `dump-*-dec.wav`): the agent. */
  heard: string;
  /** What baresip sent (its `dump-*-enc.wav`): the callee. */
  sent: string;
}

export interface ScriptedCallee {
  /** `sip:127.0.0.1:<port>`: the trunk URI to dial. */
  readonly uri: string;
  /** When it answered (baresip printed "Call established"); rejects after `timeoutMs` (default 20 s). */
  answered(timeoutMs?: number): Promise<Moment>;
  /**
   * Switches to `what` (text, or an absolute path of a `.wav`), then silence. Resolves once baresip
   * took the switch, with the moment the command was written (the speech starts about then).
   */
  say(what: string, options?: SayOptions): Promise<CommandMoment>;
  /** Switches to silence. */
  silence(): Promise<CommandMoment>;
  /** Switches to a tone of `hz` for `ms`, then silence. */
  beep(hz: number, ms: number): Promise<CommandMoment>;
  /** Hangs up (menu `/hangup`): the moment the command was written. */
  hangUp(): Promise<CommandMoment>;
  /**
   * Waits, while the call goes on, for the agent to speak and then be quiet for `quietMs` (default
   * 700): the end of the agent's turn. Only speech going on at or after `after` (a position in
   * `heard`, ms; default where the recording is now) counts. Rejects after `timeoutMs` (default 30 s).
   */
  heardSpeech(options?: HeardSpeechOptions): Promise<HeardSpeech>;
  /** Where the recordings are now (undefined outside a call; `heardMs` 0 before the agent's first packet). */
  position(): Promise<RecordingPosition | undefined>;
  /** When the call ended, whoever ended it; rejects after `timeoutMs` (default 20 s). */
  ended(timeoutMs?: number): Promise<Moment>;
  /** Its recordings of the call, complete, once the call has ended (waits up to `timeoutMs`, default 20 s). */
  recording(timeoutMs?: number): Promise<CalleeRecording>;
  /** Ends baresip and removes its files (recordings included). */
  stop(): Promise<void>;
}

const isWavPath = (what: string) => path.isAbsolute(what) && what.toLowerCase().endsWith('.wav');

type LineWaiters = Set<(line: string) => void>;

/** The moment of the next line that `matches`, or a rejection after `ms`. */
function nextLine(
  waiters: LineWaiters,
  matches: (line: string) => boolean,
  ms: number,
  what: string,
  output: () => string,
): Promise<Moment> {
  return new Promise<Moment>((resolve, reject) => {
    const waiter = (line: string) => {
      if (!matches(line)) return;
      waiters.delete(waiter);
      clearTimeout(timer);
      resolve({ at: performance.now(), date: new Date() });
    };
    const timer = setTimeout(() => {
      waiters.delete(waiter);
      reject(new Error(`scripted callee: no ${what} within ${ms} ms: ${output().slice(-600)}`));
    }, ms);
    waiters.add(waiter);
  });
}

export async function startScriptedCallee(options: ScriptedCalleeOptions = {}): Promise<ScriptedCallee> {
  const hold = options.holdSeconds ?? 120;
  const voice = options.voice ?? 'slt';
  const clipOf = async (what: string, sayVoice: CalleeVoice, then: 'hold' | 'end'): Promise<string> => {
    const clip = isWavPath(what) ? what : await speechClip(what, sayVoice);
    return then === 'end' ? heldClip(clip, 0) : heldClip(clip, hold);
  };
  const first = options.greeting ? await clipOf(options.greeting, voice, 'hold') : await silenceClip(hold);
  const baresip = await launchBaresip({ source: first, user: options.user });

  // Every line it printed, with when: answered()/ended() may be asked after the fact.
  const seen: { line: string; moment: Moment }[] = [];
  const waiters: LineWaiters = new Set();
  baresip.onLine((line) => {
    const moment = { at: performance.now(), date: new Date() };
    if (/Call established|Call with .* terminated/.test(line)) seen.push({ line, moment });
    for (const waiter of [...waiters]) waiter(line);
  });
  const waitFor = (pattern: RegExp, ms: number, what: string): Promise<Moment> => {
    const past = seen.find((s) => pattern.test(s.line));
    if (past) return Promise.resolve(past.moment);
    return nextLine(waiters, (line) => pattern.test(line), ms, what, baresip.output);
  };

  let inCall = false;
  let callEnded = false;
  const command = async (text: string): Promise<CommandMoment> => {
    if (baresip.child.exitCode !== null)
      throw new Error(`scripted callee: baresip has exited: ${baresip.output().slice(-600)}`);
    const moment = { at: performance.now(), date: new Date(), position: await position() };
    baresip.child.stdin?.write(`${text}\n`);
    return moment;
  };
  const samplesOf = async (side: 'enc' | 'dec') =>
    (await dumpSamples(await newestDump(baresip.records, side))) ?? 0;
  const position = async (): Promise<RecordingPosition | undefined> => {
    if (!inCall) return undefined;
    const [sent, heard] = await Promise.all([samplesOf('enc'), samplesOf('dec')]);
    return { sentMs: sent / 8, heardMs: heard / 8 };
  };
  baresip.onLine((line) => {
    if (/Call established/.test(line)) inCall = true;
    if (/Call with .* terminated/.test(line)) {
      inCall = false;
      callEnded = true;
    }
  });
  // One switch at a time, so the acknowledgement waited for is this switch's own.
  let queue: Promise<unknown> = Promise.resolve();
  const switchTo = (clip: string): Promise<CommandMoment> => {
    const next = queue.then(async () => {
      if (/[\r\n]/.test(clip)) throw new Error(`scripted callee: unusable path ${JSON.stringify(clip)}`);
      // In a call, aufile loads the file there and then; outside one, only the setting changes.
      const done = inCall ? /^aufile: (loaded|failed to open)/ : /^switch audio device: aufile,/;
      let failed = false;
      const taken = nextLine(
        waiters,
        (line) => {
          failed ||= line.startsWith('aufile: failed to open');
          return done.test(line);
        },
        5_000,
        `switch to ${clip}`,
        baresip.output,
      );
      // Handled below; kept from being an unhandled rejection when the command itself throws.
      taken.catch(() => undefined);
      const moment = await command(`/ausrc aufile,${clip}`);
      await taken;
      if (failed) throw new Error(`scripted callee: baresip could not open ${clip}`);
      return moment;
    });
    queue = next.catch(() => undefined);
    return next;
  };

  return {
    uri: baresip.uri,
    answered: (ms = 20_000) => waitFor(/Call established/, ms, 'answer'),
    say: async (what, sayOptions = {}) =>
      switchTo(await clipOf(what, sayOptions.voice ?? voice, sayOptions.thenHangUp ? 'end' : 'hold')),
    silence: async () => switchTo(await silenceClip(hold)),
    beep: async (hz, ms) => switchTo(await heldClip(await toneClip(hz, ms), hold)),
    hangUp: () => command('/hangup'),
    heardSpeech: (listen) => waitForSpeechInDump(baresip.records, 'dec', listen, () => callEnded),
    position,
    ended: (ms = 20_000) => waitFor(/Call with .* terminated/, ms, 'end of the call'),
    recording: async (ms = 20_000) => {
      const deadline = Date.now() + ms;
      await waitFor(/Call with .* terminated/, ms, 'end of the call');
      return completeDumps(baresip.records, deadline);
    },
    stop: () => baresip.remove(),
  };
}

/**
 * The newest call's dumps once sndfile has closed them: libsndfile writes the RIFF size when it
 * closes the file, just after baresip prints the end of the call.
 */
async function completeDumps(records: string, deadline: number): Promise<CalleeRecording> {
  for (;;) {
    const [sent, heard] = await Promise.all([newestDump(records, 'enc'), newestDump(records, 'dec')]);
    if (sent && heard && (await closed(heard)) && (await closed(sent))) return { heard, sent };
    if (Date.now() > deadline) {
      const files = await readdir(records);
      throw new Error(
        `scripted callee: no complete recordings in ${records} (files: ${files.join(', ') || 'none'})`,
      );
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function closed(file: string): Promise<boolean> {
  const handle = await open(file, 'r');
  try {
    const header = Buffer.alloc(8);
    const { bytesRead } = await handle.read(header, 0, 8, 0);
    return bytesRead === 8 && header.readUInt32LE(4) === (await handle.stat()).size - 8;
  } finally {
    await handle.close();
  }
}
