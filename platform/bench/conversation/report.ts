import { type CallsRun, type ConversationSection, summarize } from './index';
import { ANSWERS } from './script';

const f0 = (n: number) => (Number.isFinite(n) ? n.toFixed(0) : 'n/a');
const f2 = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : 'n/a');
const pct = (share: number) => (Number.isFinite(share) ? `${(share * 100).toFixed(1)}%` : 'n/a');
const loads = (l: number[]) => l.map(f2).join(', ');
/** The engine's default end-of-utterance wait (VoiceActivityDetector). */
const DEFAULT_HANGOVER_MS = 700;
const TURN_TARGET_MS = 800;
const BARGE_IN_TARGET_MS = 200;

/** The warmed opening is synthesised during screening: its "first audio" is the cache, ~0 ms. */
const synthesised = (ms: number[]) => ms.filter((v) => v >= 1);

function p50p95(values: number[]): string {
  const s = summarize(values);
  return `${f0(s.p50)} / ${f0(s.p95)}`;
}

/**
 * The turns as the callee heard them. A reply heard sooner after the callee stopped than the
 * end-of-utterance wait is impossible: baresip lost time in its recordings (a starved machine).
 */
function heardGaps(r: CallsRun): string {
  const wait = r.hangoverMs ?? DEFAULT_HANGOVER_MS;
  const impossible = r.earGapMs.filter((g) => g < wait).length;
  return `${p50p95(r.earGapMs)}${impossible ? ` (${impossible} of ${r.earGapMs.length} impossible: under ${wait})` : ''}`;
}

/** The BENCHMARKS.md section of `pnpm bench conversation`. */
export function conversationLines(c: ConversationSection): string[] {
  const s = c.settings;
  return [
    '## Conversations: real calls with the local engines',
    '',
    `The telephony service holds real conversations with the deployment\u2019s default engines: espeak-ng speech (LocalSynthesizer), pocketsphinx recognition with a grammar per turn (PocketsphinxRecognizer), the rule brain, answering-machine screening on, the engine\u2019s own VAD and timers. It runs in a process of its own (platform/bench/conversation/host.ts, createTelephonyService on an in-process bus and a scratch database, as the telephony tests build it), so its CPU, with that of the engine processes it starts (its reaped children, /proc cutime), is the conversations\u2019 alone. It dials scripted baresip callees on loopback (shared/testing/sip), each in its own baresip, which answer "Hello?", wait for each of the agent\u2019s lines to end (700 ms of quiet in what they hear) and answer it in flite\u2019s slt voice: the lead qualifier of the telephony tests with two optional details more, five answers and five measured turns a call (${ANSWERS.map((a) => `“${a}”`).join(', ')}). Load average when the section started: ${loads(c.loadAverage)} (2 cores, shared with other work).`,
    '',
    `Turn latency is the service\u2019s own metric, \`conversation_turn_latency_seconds\`: from the end of the callee\u2019s speech as the engine\u2019s VAD places it (the end of the last voiced 20 ms frame) to the first RTP packet of the agent\u2019s answer; the service is handed a Metrics registry that keeps every observed value (platform/bench/conversation/raw-metrics.ts), so percentiles are of the values, not of buckets. The end-of-utterance wait (the VAD hangover) is inside it. "As the callee heard it" is the same turn read from baresip\u2019s recordings: the end of its answer in what it sent to the first sound of the agent\u2019s reply in what it heard (RMS over 300 in a 20 ms frame): it adds the service\u2019s jitter buffer (up to 60 ms), baresip\u2019s own receive path and the quiet at the start of the synthesised line; it is only as good as baresip\u2019s recordings, which lose time when the machine is saturated (a reply sooner than the end-of-utterance wait is flagged as impossible). Percentiles are nearest-rank: with few turns p95 is close to the largest.`,
    '',
    ...turnTable(c),
    '',
    ...whereLines(c),
    '',
    ...bargeInLines(c),
    '',
    ...concurrencyLines(c),
    '',
    ...targetLines(c),
    '',
    `The section took ${c.seconds.toFixed(0)} s. Settings: ${s.calls} calls one after another; shorter end-of-utterance waits ${s.hangovers.length ? s.hangovers.map((h) => `${h} ms`).join(', ') : 'none'} (${s.hangoverCalls} calls each); ${s.bargeIns} barge-in calls; concurrent levels ${s.levels.join(', ') || 'none'} placed over ${s.spreadMs / 1000} s, stopping at a turn p95 over ${s.maxP95Ms} ms. Knobs: BENCH_CONVERSATION_CALLS, BENCH_CONVERSATION_HANGOVERS, BENCH_CONVERSATION_BARGE_INS, BENCH_CONVERSATION_LEVELS.`,
    '',
  ];
}

function runRow(r: CallsRun): string {
  const turn = summarize(r.turnMs);
  const wait = r.hangoverMs === null ? `${DEFAULT_HANGOVER_MS} (default)` : `${r.hangoverMs}`;
  return `| ${r.concurrent === 1 ? `${r.calls}, one at a time` : `${r.calls} at once`} | ${wait} | ${loads(r.loadAverage.slice(0, 1))} | ${turn.count} | ${f0(turn.p50)} | ${f0(turn.p95)} | ${f0(turn.max)} | ${heardGaps(r)} | ${r.heard - r.calls} / ${r.answers} | ${r.collected} of ${r.calls * ANSWERS.length} | ${r.bargeIns} | ${r.failures.length} |`;
}

function turnTable(c: ConversationSection): string[] {
  return [
    '### Turn latency',
    '',
    'The shorter end-of-utterance waits are not a setting of the engine (each call\u2019s VAD is made with the default): the service host gives every VAD the shorter wait through its own setHangover before each frame (platform/bench/conversation/host.ts), for the bench only. Utterances heard / answers said: more heard than said means an answer was split in two at a pause (the greeting, heard during screening, is left out). Details collected: what the rule brain understood of the answers (five a call). Barge-ins: times the callee\u2019s speech stopped the agent (conversation_barge_ins_total); none is scripted in these calls.',
    '',
    '| calls | end-of-utterance wait ms | load (1 min) | turns | p50 ms | p95 ms | max ms | as the callee heard it p50 / p95 ms | utterances heard / answers | details collected | barge-ins | calls failed |',
    '|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|',
    ...[c.sequential, ...c.hangovers, ...c.concurrency].map(runRow),
    ...[c.sequential, ...c.hangovers, ...c.concurrency].flatMap((r) =>
      r.failures.length ? [`\nFailed at ${r.calls} calls: ${r.failures.slice(0, 3).join('; ')}`] : [],
    ),
  ];
}

function whereLines(c: ConversationSection): string[] {
  const seq = c.sequential;
  const paced = c.alone.stt.filter((x) => x.paced);
  const atOnce = c.alone.stt.filter((x) => !x.paced);
  const right = (xs: typeof paced) => xs.filter((x) => x.heard === normal(x.said)).length;
  const sttIn = summarize(seq.sttMs);
  const ttsIn = summarize(synthesised(seq.ttsMs));
  const brain = summarize(c.alone.brainUs);
  const sum = DEFAULT_HANGOVER_MS - 20 + sttIn.p50 + brain.p50 / 1000 + ttsIn.p50 + 10;
  return [
    '### Where a turn\u2019s time goes (one call at a time, the engine\u2019s defaults)',
    '',
    `"In the calls" are the service\u2019s own histograms over the ${seq.calls} calls above (conversation_stt_seconds: finish() to the text; conversation_tts_first_audio_seconds: asking for a line to its first audio, the opening left out: it is synthesised during screening and reports about 0). "Alone" runs each engine on its own, outside any call, on the same utterances and lines, with nothing else of the bench running.`,
    '',
    '| part of the turn | p50 ms | p95 ms | how |',
    '|---|---:|---:|---|',
    `| end-of-utterance wait (VAD hangover) | ${DEFAULT_HANGOVER_MS - 20}-${DEFAULT_HANGOVER_MS} | ${DEFAULT_HANGOVER_MS} | a setting, not a measurement: speech_end fires on the first 20 ms frame that ends ${DEFAULT_HANGOVER_MS} ms after the last voiced frame; the turn is timed from that last voiced frame\u2019s end |`,
    `| speech recognition, in the calls | ${f0(sttIn.p50)} | ${f0(sttIn.p95)} | ${sttIn.count} utterances (the greetings included) |`,
    `| speech recognition alone, in real time | ${p50p95(paced.map((x) => x.finishMs)).replace(' / ', ' | ')} | ${paced.length} utterances: the answer clips through G.711, written 20 ms a frame to a recogniser opened 1 s ahead, the hangover\u2019s wait, 200 ms of tail, finish(); ${right(paced)} of ${paced.length} recognised word for word |`,
    `| speech recognition alone, written at once | ${p50p95(atOnce.map((x) => x.finishMs)).replace(' / ', ' | ')} | the same utterances given whole just before finish(): the decoder\u2019s whole work, what a turn would wait if pocketsphinx fell behind real time |`,
    `| the rule brain | ${(brain.p50 / 1000).toFixed(2)} | ${(brain.p95 / 1000).toFixed(2)} | its answer to each utterance, ${brain.count} turns |`,
    `| speech synthesis to first audio, in the calls | ${f0(ttsIn.p50)} | ${f0(ttsIn.p95)} | ${ttsIn.count} lines |`,
    `| speech synthesis to first audio, alone | ${p50p95(c.alone.tts.map((t) => t.firstMs)).replace(' / ', ' | ')} | the agent\u2019s ${new Set(c.alone.tts.map((t) => t.text)).size} lines of the dialogue, ${c.alone.tts.length} syntheses; the whole line took ${p50p95(c.alone.tts.map((t) => t.allMs))} ms (p50 / p95) for ${p50p95(c.alone.tts.map((t) => t.audioS * 1000))} ms of speech |`,
    '| to the next 20 ms packet | 10 | 20 | the first audio waits for the pacer\u2019s next tick (up to one frame) |',
    `| **sum of the p50s** (wait ${DEFAULT_HANGOVER_MS - 20}, recognition, brain, synthesis, half a frame) | **${f0(sum)}** | | against the measured turn p50 of **${f0(summarize(seq.turnMs).p50)}** |`,
    '',
    `Not in the turn latency, but in what the callee hears: the synthesised lines begin with ${p50p95(c.alone.tts.map((t) => t.leadMs))} ms (p50 / p95) of near-silence before their first sound (the first 20 ms frame over RMS 300), so the agent\u2019s first packet is quiet and its first word reaches the callee that much later; "as the callee heard it" holds it.`,
  ];
}

const normal = (text: string) => text.toLowerCase().replace(/[^a-z ]/g, '');

function bargeInLines(c: ConversationSection): string[] {
  const measured = c.bargeIn.filter((b) => b.latencyMs !== null).map((b) => b.latencyMs!);
  const s = summarize(measured);
  const missing = c.bargeIn.filter((b) => b.latencyMs === null);
  return [
    '### Barge-in',
    '',
    `${c.bargeIn.length} calls, one at a time, with a long opening line: once the callee has heard the agent\u2019s first words and a pause (100 ms of quiet), it waits 0, 200, 400, 600 or 800 ms (in turn) and says "What is this about?", then hangs up 1.5 s later. From baresip\u2019s recordings, as the telephony barge-in test reads them (one time base within two 20 ms frames): the callee\u2019s speech onset in what it sent (first sample of magnitude 500 or more) to the end of the agent\u2019s speech in what it heard (spans with 120 ms of hangover that began before the onset + 500 ms). It holds the VAD\u2019s onset (three voiced frames), the service\u2019s jitter buffer (up to 60 ms), the next tick, and baresip\u2019s own receive path; the spans are on 20 ms frames, so the values move in 20 ms steps. Load average when it started: ${loads(c.bargeInLoadAverage)}.`,
    '',
    '| interruptions | measured | p50 ms | p95 ms | max ms | cut in the call record | values ms |',
    '|---:|---:|---:|---:|---:|---:|---|',
    `| ${c.bargeIn.length} | ${measured.length} | ${f0(s.p50)} | ${f0(s.p95)} | ${f0(s.max)} | ${c.bargeIn.filter((b) => b.cut).length} | ${measured.map(f0).join(', ')} |`,
    ...(missing.length ? ['', `Without a figure: ${missing.map((b) => b.failure).join('; ')}.`] : []),
  ];
}

function concurrencyLines(c: ConversationSection): string[] {
  const runs = [c.sequential, ...c.concurrency];
  return [
    '### Concurrent conversations',
    '',
    'Each level places its calls over a few seconds (so that their turns do not fall in step) and waits for all of them to end. CPU: the service process and its engine processes (reaped children), from /proc, over the level; per live call: divided by the calls\u2019 answered seconds summed, a share of one core. Node runs the calls on one thread; pocketsphinx, espeak-ng and sox are processes of their own and may use the other core. The callees\u2019 baresips run on the same 2 cores (their CPU is shown apart).',
    '',
    '| calls at once | load (1, 5, 15 min) at start; 1 min at the end | turns | turn p50 ms | turn p95 ms | CPU, service + engines (Node process alone) | per live call | CPU s per call | callees\u2019 CPU | calls failed |',
    '|---:|---|---:|---:|---:|---|---:|---:|---:|---:|',
    ...runs.map((r) => {
      const turn = summarize(r.turnMs);
      return `| ${r.concurrent} | ${loads(r.loadAverage)}; ${loads(r.loadAverageEnd.slice(0, 1))} | ${turn.count} | ${f0(turn.p50)} | ${f0(turn.p95)} | ${pct(r.hostCpuS / r.windowS)} of a core (${pct(r.nodeCpuS / r.windowS)}) | ${pct(r.hostCpuS / Math.max(1, r.callSeconds))} | ${f2(r.hostCpuS / r.calls)} | ${pct(r.calleeCpuS / r.windowS)} | ${r.failures.length} |`;
    }),
    ...(c.stopped ? ['', `Stopped: ${c.stopped}.`] : []),
  ];
}

function targetLines(c: ConversationSection): string[] {
  const turn = summarize(c.sequential.turnMs);
  const barge = summarize(c.bargeIn.filter((b) => b.latencyMs !== null).map((b) => b.latencyMs!));
  const held = [c.sequential, ...c.concurrency].filter((r) => summarize(r.turnMs).p95 <= c.settings.maxP95Ms);
  const top = held.reduce<CallsRun | undefined>(
    (best, r) => (r.concurrent > (best?.concurrent ?? 0) ? r : best),
    undefined,
  );
  const most = top?.concurrent ?? 0;
  const share = top ? top.hostCpuS / Math.max(1, top.callSeconds) : Number.NaN;
  const met = (ok: boolean) => (ok ? 'yes' : '**no**');
  return [
    '| target | measured | met |',
    '|---|---|---|',
    `| turn latency p50 <= ${TURN_TARGET_MS} ms (one call at a time, default ${DEFAULT_HANGOVER_MS} ms end-of-utterance wait) | p50 ${f0(turn.p50)} ms, p95 ${f0(turn.p95)} ms | ${met(turn.p50 <= TURN_TARGET_MS)} |`,
    ...c.hangovers.map((r) => {
      const t = summarize(r.turnMs);
      return `| the same with a ${r.hangoverMs} ms wait (not the default) | p50 ${f0(t.p50)} ms, p95 ${f0(t.p95)} ms | ${met(t.p50 <= TURN_TARGET_MS)} |`;
    }),
    `| barge-in: the agent stops within ${BARGE_IN_TARGET_MS} ms of the callee\u2019s onset | p50 ${f0(barge.p50)} ms, p95 ${f0(barge.p95)} ms | ${met(barge.p95 <= BARGE_IN_TARGET_MS)}${barge.p50 <= BARGE_IN_TARGET_MS && barge.p95 > BARGE_IN_TARGET_MS ? ' (p50 yes)' : ''} |`,
    `| concurrent conversations with turn p95 <= ${c.settings.maxP95Ms} ms, this 2-core machine as shared | up to ${most} at once held (levels run: ${[1, ...c.concurrency.map((r) => r.concurrent)].join(', ')}); by CPU, one core carries about ${f0(1 / share)} live calls (${pct(share)} of a core each at ${most} at once) | - |`,
  ];
}
