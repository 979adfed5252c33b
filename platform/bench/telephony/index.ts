import { loadavg } from 'node:os';
import { type Child, cpuSecondsOf, percentile, platformNodeFlags, startChild, waitQuiet } from '../support';
import type { CallerCommand, WindowEdge } from './caller';
import type { ConcurrentResult } from './concurrent';
import type { SetupResult } from './setup-time';
import { startUas, uacSetupTimes } from './sipp';

export interface TelephonySettings {
  /** Concurrent call counts to run, one window each (BENCH_TELEPHONY_CALLS, e.g. 50,100). */
  levels: number[];
  seconds: number;
  rampMs: number;
  setupCalls: number;
  rounds: number;
}

export interface SetupSummary {
  count: number;
  p50: number;
  p99: number;
  mean: number;
}

export interface ConcurrentRun extends ConcurrentResult {
  /** The sipp far end's CPU over the same window (echoing every call), share of one core. */
  sippCoreShare: number;
  round: number;
}

export interface TelephonySection {
  settings: TelephonySettings;
  speech: string;
  /** 1, 5 and 15 minute load averages when the section started: the machine is shared. */
  loadAverage: number[];
  setup: { rounds: { ours: SetupSummary; sipp: SetupSummary }[]; ourFailures: number };
  concurrent: ConcurrentRun[];
}

type Log = (line: string) => void;

/** Sends one command to the caller process; answers its result, passing window edges on. */
function command<T>(caller: Child, message: CallerCommand, onWindow?: (edge: WindowEdge) => void) {
  return new Promise<T>((resolve, reject) => {
    const onMessage = (reply: { type: string; message?: string }) => {
      if (reply.type === 'window') return onWindow?.(reply as WindowEdge);
      caller.child.off('message', onMessage);
      if (reply.type === 'error') reject(new Error(`telephony caller: ${reply.message}`));
      else resolve(reply as T);
    };
    caller.child.on('message', onMessage);
    caller.child.send(message);
  });
}

export function summarize(times: number[]): SetupSummary {
  const sorted = [...times].sort((a, b) => a - b);
  return {
    count: sorted.length,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    mean: sorted.reduce((s, t) => s + t, 0) / Math.max(1, sorted.length),
  };
}

/**
 * Real calls from the telephony service's SIP user agent and RTP sessions (in a process of their
 * own) to sipp on loopback: call setup time against sipp's own UAC, then N concurrent calls,
 * each speaking, against `sipp -sn uas -rtp_echo`.
 */
export async function telephonyRun(settings: TelephonySettings, logDir: string, log: Log) {
  const loadAverage = loadavg();
  const caller = await startChild(
    'telephony-caller',
    'platform/bench/telephony/caller.ts',
    [],
    { RTP_PORT_MIN: '21000', RTP_PORT_MAX: String(21000 + 4 * Math.max(...settings.levels) + 99) },
    { ready: /caller ready/, logDir, ipc: true, nodeFlags: platformNodeFlags() },
  );
  const speech = /caller ready: (.*)/.exec(caller.output())?.[1] ?? 'unknown';
  try {
    const setup = await setupRounds(caller, settings, log);
    const concurrent: ConcurrentRun[] = [];
    for (let round = 0; round < settings.rounds; round++) {
      // The order rotates each round, so no call count always runs first or last.
      const levels = settings.levels.map((_, i) => settings.levels[(i + round) % settings.levels.length]!);
      for (const calls of levels) {
        await waitQuiet([caller.pid], 15_000);
        concurrent.push({ ...(await concurrentRun(caller, calls, settings, log)), round: round + 1 });
      }
    }
    const section: TelephonySection = { settings, speech, loadAverage, setup, concurrent };
    return section;
  } finally {
    await caller.stop();
  }
}

async function setupRounds(caller: Child, settings: TelephonySettings, log: Log) {
  const uas = await startUas({ rtpEcho: false });
  const rounds: { ours: SetupSummary; sipp: SetupSummary }[] = [];
  let ourFailures = 0;
  try {
    for (let round = 0; round < settings.rounds; round++) {
      const runOurs = async () => {
        const result = await command<SetupResult>(caller, {
          type: 'setup',
          uri: uas.uri,
          calls: settings.setupCalls,
        });
        ourFailures += result.failures;
        return summarize(result.times);
      };
      const runSipp = async () => summarize(await uacSetupTimes(uas.uri, settings.setupCalls));
      // The order alternates each round, as the other comparisons' does.
      let ours: SetupSummary;
      let sipp: SetupSummary;
      if (round % 2 === 0) {
        ours = await runOurs();
        sipp = await runSipp();
      } else {
        sipp = await runSipp();
        ours = await runOurs();
      }
      rounds.push({ ours, sipp });
      log(
        `  setup round ${round + 1}: ours p50 ${ours.p50.toFixed(2)} ms mean ${ours.mean.toFixed(2)} ms; sipp uac p50 ${sipp.p50.toFixed(2)} ms mean ${sipp.mean.toFixed(2)} ms`,
      );
    }
  } finally {
    await uas.stop();
  }
  return { rounds, ourFailures };
}

async function concurrentRun(caller: Child, calls: number, settings: TelephonySettings, log: Log) {
  const uas = await startUas({ rtpEcho: true });
  try {
    let sippAtStart = 0;
    let sippCpu = 0;
    const result = await command<ConcurrentResult>(
      caller,
      { type: 'concurrent', uri: uas.uri, calls, seconds: settings.seconds, rampMs: settings.rampMs },
      ({ edge }) => {
        if (edge === 'start') sippAtStart = cpuSecondsOf(uas.pid);
        else sippCpu = cpuSecondsOf(uas.pid) - sippAtStart;
      },
    );
    const run = { ...result, sippCoreShare: sippCpu / result.windowS };
    log(
      `  ${calls} calls (${run.answered} answered): send interval p50 ${run.interval.p50.toFixed(2)} p99 ${run.interval.p99.toFixed(2)} max ${run.interval.max.toFixed(1)} ms; lost ${run.lost} of ${run.sent}; skipped ${run.ticksSkipped}; CPU ${(run.cpuCoreShare * 100).toFixed(1)}% of a core (sipp ${(run.sippCoreShare * 100).toFixed(1)}%)`,
    );
    return run;
  } finally {
    await uas.stop();
  }
}
