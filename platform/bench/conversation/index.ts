import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { type Child, percentile, platformNodeFlags, sleep, startChild, waitQuiet } from '../support';
import { scratchDatabase } from '../topology';
import { type BargeInResult, bargeInCall, type DialogueResult, dialogueCall, stopAllCallees } from './calls';
import { brainAlone, dialogue, type SttSample, sttAlone, type TtsSample, ttsAlone } from './engines-alone';
import { HostClient } from './host-client';
import { CalleeCpu, cpuOf } from './load';
import { HISTOGRAMS } from './protocol';
import { ANSWERS } from './script';

export interface ConversationBenchSettings {
  /** Calls one after another at the engine's defaults (BENCH_CONVERSATION_CALLS). */
  calls: number;
  /** Shorter end-of-utterance waits to run too, ms (BENCH_CONVERSATION_HANGOVERS, e.g. 400,300). */
  hangovers: number[];
  /** Calls one after another at each shorter wait. */
  hangoverCalls: number;
  /** Calls whose opening the callee talks over (BENCH_CONVERSATION_BARGE_INS). */
  bargeIns: number;
  /** Concurrent calls, in order, beyond one (BENCH_CONVERSATION_LEVELS, e.g. 4,8,16). */
  levels: number[];
  /** A level whose turn latency p95 exceeds this ends the concurrency runs. */
  maxP95Ms: number;
  /** The concurrent calls are placed over this long, so their turns do not fall in step. */
  spreadMs: number;
  sttRepeats: number;
  ttsRepeats: number;
  /** The database server a scratch database is made in. */
  adminDatabaseUrl: string;
}

export interface Summary {
  count: number;
  p50: number;
  p95: number;
  max: number;
  mean: number;
}

export interface CallsRun {
  /** Calls at once (1: one after another). */
  concurrent: number;
  calls: number;
  /** The VAD's end-of-utterance wait, ms; null: the engine's default (700). */
  hangoverMs: number | null;
  /** Load average (1, 5, 15 min) when it started, and when it ended. */
  loadAverage: number[];
  loadAverageEnd: number[];
  /** conversation_turn_latency_seconds, raw, ms. */
  turnMs: number[];
  /** conversation_stt_seconds (finish() to text, in the calls), ms. */
  sttMs: number[];
  /** conversation_tts_first_audio_seconds (in the calls; the warmed opening included), ms. */
  ttsMs: number[];
  /** The callee's end of speech to the agent's first sound, from baresip's recordings, ms. */
  earGapMs: number[];
  answers: number;
  /** Details the rule brain collected, summed over the calls (five a call when every answer was understood). */
  collected: number;
  /** Utterances the agent heard, the callee's greeting included (one per answer + 1 when none split). */
  heard: number;
  bargeIns: number;
  failures: string[];
  /** Seconds from the first dial to the last call's end. */
  windowS: number;
  /** The calls' answered durations, summed, s. */
  callSeconds: number;
  /** The service host's CPU and its engine processes', s. */
  hostCpuS: number;
  /** Of it, the host's Node process alone (the thread the calls' media and engine run on, and libuv's). */
  nodeCpuS: number;
  /** The scripted callees' (baresip) CPU, s. */
  calleeCpuS: number;
}

export interface ConversationSection {
  settings: Omit<ConversationBenchSettings, 'adminDatabaseUrl'>;
  /** How long the section took, s. */
  seconds: number;
  loadAverage: number[];
  alone: { stt: SttSample[]; tts: TtsSample[]; brainUs: number[] };
  sequential: CallsRun;
  hangovers: CallsRun[];
  bargeIn: BargeInResult[];
  bargeInLoadAverage: number[];
  concurrency: CallsRun[];
  /** Why the concurrency runs stopped before the last level, if they did. */
  stopped: string | null;
}

type Log = (line: string) => void;

export function summarize(values: number[]): Summary {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  return {
    count: sorted.length,
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    max: sorted.at(-1) ?? Number.NaN,
    mean: sorted.reduce((s, v) => s + v, 0) / Math.max(1, sorted.length),
  };
}

const ms = (n: number) => (Number.isFinite(n) ? `${n.toFixed(0)} ms` : 'n/a');

/**
 * `pnpm bench conversation`: real conversations with the local engines (espeak-ng/flite,
 * pocketsphinx, the rule brain) held by the telephony service, in a process of its own, with
 * scripted baresip callees on loopback. Turn latency from the service's own metrics, where the
 * time goes (each engine alone), barge-in from the callees' recordings, and concurrent calls.
 */
export async function conversationRun(
  settings: ConversationBenchSettings,
  logDir: string,
  log: Log,
): Promise<ConversationSection> {
  const { adminDatabaseUrl, ...shown } = settings;
  const began = performance.now();
  const elapsed = () => `${((performance.now() - began) / 1000).toFixed(0)} s in`;
  const loadAverage = loadavg();
  log(`  load average ${loadAverage.map((l) => l.toFixed(2)).join(', ')}`);

  log('  engines alone: speech synthesis, the rule brain, speech recognition');
  const script = await dialogue();
  const tts = await ttsAlone(settings.ttsRepeats, script.lines);
  const brainUs = await brainAlone(50);
  const stt = await sttAlone(settings.sttRepeats, script.expects);
  log(
    `  TTS first audio p50 ${ms(summarize(tts.map((t) => t.firstMs)).p50)}; brain p50 ${summarize(brainUs).p50.toFixed(0)} us; STT finish p50 ${ms(summarize(stt.map((s) => s.finishMs)).p50)}, ${stt.filter((s) => s.heard === normal(s.said)).length} of ${stt.length} word for word`,
  );

  const work = mkdtempSync(join(tmpdir(), 'voice-conversation-bench-'));
  chmodSync(work, 0o755);
  const scratch = await scratchDatabase(adminDatabaseUrl);
  let host: Child | undefined;
  const onSigint = () => {
    void stopAllCallees().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSigint);
  try {
    host = await startChild(
      'conversation-host',
      'platform/bench/conversation/host.ts',
      [],
      {
        HOST_DATABASE_URL: scratch.url,
        HOST_DATA_DIR: work,
        HOST_RTP_MIN: '30000',
        HOST_RTP_MAX: '30399',
        HOST_LOG_LEVEL: process.env.BENCH_LOG_LEVEL,
      },
      { ready: /conversation host ready/, logDir, ipc: true, nodeFlags: platformNodeFlags() },
    );
    const client = new HostClient(host);
    const run = async (concurrent: number, calls: number, hangoverMs: number | null) => {
      await waitQuiet([host!.pid], 15_000);
      await client.hangover(hangoverMs);
      const result = await callsRun(client, concurrent, calls, hangoverMs, settings.spreadMs);
      logRun(log, result);
      return result;
    };

    // First: these short calls also bring the new service process to its steady state (code
    // compiled, caches filled) before the turns and their CPU are measured.
    log(`  ${settings.bargeIns} calls whose opening the callee talks over (${elapsed()})`);
    await waitQuiet([host.pid], 15_000);
    const bargeInLoadAverage = loadavg();
    const bargeIn: BargeInResult[] = [];
    for (let i = 0; i < settings.bargeIns; i++) {
      // Where the callee cuts in moves along the opening, from a pause between words into words.
      const result = await bargeInCall(client, (i % 5) * 200);
      bargeIn.push(result);
      log(
        `    ${result.latencyMs === null ? `no figure: ${result.failure}` : `agent stopped ${ms(result.latencyMs)} after the callee began`}${result.cut ? '' : ' (the record does not say it was cut)'}`,
      );
    }

    log(`  ${settings.calls} calls one after another, ${ANSWERS.length} answers each (${elapsed()})`);
    const sequential = await run(1, settings.calls, null);
    const hangovers: CallsRun[] = [];
    for (const hangover of settings.hangovers) {
      log(
        `  ${settings.hangoverCalls} calls with the end-of-utterance wait at ${hangover} ms (${elapsed()})`,
      );
      hangovers.push(await run(1, settings.hangoverCalls, hangover));
    }

    const concurrency: CallsRun[] = [];
    let stopped: string | null = null;
    for (const level of settings.levels) {
      log(`  ${level} concurrent calls (${elapsed()})`);
      const result = await run(level, level, null);
      concurrency.push(result);
      const p95 = summarize(result.turnMs).p95;
      if (p95 > settings.maxP95Ms) {
        stopped = `turn latency p95 ${ms(p95)} at ${level} calls, over ${settings.maxP95Ms} ms`;
        break;
      }
      if (result.failures.length * 2 > result.calls) {
        stopped = `${result.failures.length} of ${result.calls} calls failed at ${level} calls`;
        break;
      }
    }
    if (stopped) log(`  stopped: ${stopped}`);
    return {
      settings: shown,
      seconds: (performance.now() - began) / 1000,
      loadAverage,
      alone: { stt, tts, brainUs },
      sequential,
      hangovers,
      bargeIn,
      bargeInLoadAverage,
      concurrency,
      stopped,
    };
  } finally {
    process.off('SIGINT', onSigint);
    await stopAllCallees();
    await host?.stop();
    await scratch
      .drop()
      .catch((error: unknown) => log(`could not drop the scratch database: ${String(error)}`));
    rmSync(work, { recursive: true, force: true });
  }
}

const normal = (text: string) => text.toLowerCase().replace(/[^a-z ]/g, '');

/** `calls` dialogue calls, `concurrent` at a time (placed over `spreadMs`), and what they cost. */
async function callsRun(
  client: HostClient,
  concurrent: number,
  calls: number,
  hangoverMs: number | null,
  spreadMs: number,
): Promise<CallsRun> {
  const loadAverage = loadavg();
  const before = await client.take();
  const cpuBefore = cpuOf(client.pid);
  const callees = new CalleeCpu();
  const started = performance.now();
  const results: DialogueResult[] = [];
  for (let done = 0; done < calls; done += concurrent) {
    const batch = Math.min(concurrent, calls - done);
    results.push(
      ...(await Promise.all(
        Array.from({ length: batch }, async (_, i) => {
          await sleep(batch > 1 ? (i * spreadMs) / batch : 0);
          return dialogueCall(client);
        }),
      )),
    );
  }
  const windowS = (performance.now() - started) / 1000;
  const calleeCpuS = callees.stop();
  // The recognisers opened ahead for a next turn end with their call: reaped, they count.
  await sleep(1000);
  const cpuAfter = cpuOf(client.pid);
  const nodeCpuS = cpuAfter.own - cpuBefore.own;
  const hostCpuS = nodeCpuS + cpuAfter.children - cpuBefore.children;
  const after = await client.take();
  const seconds = (name: string) => (after.observed[name] ?? []).map((s) => s * 1000);
  return {
    concurrent,
    calls,
    hangoverMs,
    loadAverage,
    loadAverageEnd: loadavg(),
    turnMs: seconds(HISTOGRAMS.turn),
    sttMs: seconds(HISTOGRAMS.stt),
    ttsMs: seconds(HISTOGRAMS.tts),
    earGapMs: results.flatMap((r) => r.earGapsMs),
    answers: results.reduce((s, r) => s + r.answers, 0),
    heard: results.reduce((s, r) => s + (r.end?.heard.length ?? 0), 0),
    collected: results.reduce((s, r) => s + Object.keys(r.end?.conversation?.collected ?? {}).length, 0),
    bargeIns: after.bargeIns - before.bargeIns,
    failures: results.flatMap((r) => (r.failure ? [r.failure] : [])),
    windowS,
    callSeconds: results.reduce((s, r) => s + (r.end?.duration_seconds ?? 0), 0),
    hostCpuS,
    nodeCpuS,
    calleeCpuS,
  };
}

function logRun(log: Log, r: CallsRun): void {
  const turn = summarize(r.turnMs);
  const ear = summarize(r.earGapMs);
  log(
    `    ${r.windowS.toFixed(0)} s: turns ${turn.count}: p50 ${ms(turn.p50)} p95 ${ms(turn.p95)} max ${ms(turn.max)}; as the callee heard it p50 ${ms(ear.p50)} p95 ${ms(ear.p95)}; STT p50 ${ms(summarize(r.sttMs).p50)}; CPU ${((r.hostCpuS / Math.max(1, r.callSeconds)) * 100).toFixed(1)}% of a core per live call (callees ${((r.calleeCpuS / Math.max(1, r.callSeconds)) * 100).toFixed(1)}%); heard ${r.heard} utterances for ${r.answers} answers (+${r.calls} greetings), ${r.collected} details collected; barge-ins ${r.bargeIns}; ${r.failures.length} failed${r.failures.length ? `: ${r.failures.slice(0, 2).join(' | ')}` : ''}`,
  );
}
