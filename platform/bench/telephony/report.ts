import { median } from '../support';
import type { TelephonySection } from './index';

const f1 = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : 'n/a');
const f2 = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : 'n/a');
const pct = (share: number) => `${(share * 100).toFixed(1)}%`;

/**
 * Pacing held: every call answered, the send interval within 20 +/- 5 ms at both tails (p1 and
 * p99: at most 1% of intervals longer than 25 ms, at most 1% shorter than 15), nothing lost or skipped.
 */
export function pacingHeld(run: TelephonySection['concurrent'][number]): boolean {
  const { p1, p99 } = run.interval;
  return run.answered === run.calls && p1 >= 15 && p99 <= 25 && run.lost === 0 && run.ticksSkipped === 0;
}

/** The BENCHMARKS.md section of the telephony runs. */
export function telephonyLines(t: TelephonySection, cpus: number): string[] {
  const s = t.settings;
  const out = [
    '## Telephony: real calls against sipp',
    '',
    `Real SIP calls over UDP on loopback, placed by the telephony service\u2019s own call path (SipUserAgent, RtpSession on an RtpPortPool port pair, G.711 from a speech clip) in a process of its own (platform/bench/telephony/caller.ts), so its CPU and event loop are the calls\u2019 alone. The far end is sipp 3.6 on the same machine. Load average when the section started: ${t.loadAverage.map(f2).join(', ')} (${cpus} cores, shared with other work).`,
    '',
    '### Concurrent calls',
    '',
    `Each call plays ${t.speech} in a loop into \`sipp -sn uas -rtp_echo\`, which sends every RTP datagram back. Each call count runs in ${s.rounds} rounds, the order rotating. The calls are placed over ${s.rampMs / 1000} s; once all are answered (and a second more) a ${s.seconds} s window is measured: through the session\u2019s probe (RtpProbe, off outside the bench), the monotonic time of every RTP send and the return of every packet by its sequence number. Interval: time between two consecutive sends of one call, pooled over all calls; deviation |interval \u2212 20 ms|. Pacing is held when the interval\u2019s p1 and p99 are both within 20 \u00b1 5 ms, every call was answered and no packet was lost or skipped (ticks are skipped after a stall longer than three periods). Lost: sent in the window and not back 300 ms after it. CPU: process.cpuUsage() of the calling process over the window, as a share of one core (Node runs the calls on one thread, so one process is one core\u2019s worth); sipp\u2019s from /proc. Event-loop lateness: how late monitorEventLoopDelay\u2019s 10 ms timer fired. Waiting for a CPU: the time the event-loop thread was runnable but not running (/proc/self/schedstat), as a share of the window: time other processes held both cores. UDP drops: datagrams the kernel dropped for a full socket receive buffer (/proc/net/snmp RcvbufErrors), machine-wide, over the window, and of them those at our RTP sockets (/proc/net/udp); the others are at sipp\u2019s one echo socket, which receives every call\u2019s packets, or at other work\u2019s.`,
    '',
    '| calls | round | answered | send interval p1 / p50 / p99 / max ms | deviation p99 / max ms | ticks skipped | sent | lost | UDP drops: machine (at our sockets) | echo round trip p50 / p99 ms | pacing held |',
    '|---:|---:|---:|---|---|---:|---:|---:|---:|---|---|',
  ];
  const runs = [...t.concurrent].sort((a, b) => a.calls - b.calls || a.round - b.round);
  for (const r of runs) {
    out.push(
      `| ${r.calls} | ${r.round} | ${r.answered} | ${f1(r.interval.p1)} / ${f1(r.interval.p50)} / ${f1(r.interval.p99)} / ${f1(r.interval.max)} | ${f1(r.deviation.p99)} / ${f1(r.deviation.max)} | ${r.ticksSkipped} | ${r.sent} | ${r.lost} | ${r.udpDrops} (${r.udpDropsOurs}) | ${f2(r.echoRtt.p50)} / ${f2(r.echoRtt.p99)} | ${pacingHeld(r) ? 'yes' : '**no**'} |`,
    );
  }
  out.push(
    '',
    '| calls | round | CPU, our process (kernel part) | CPU per call | CPU, sipp | event-loop lateness p50 / p99 / max ms | waiting for a CPU (run queue) | GC pauses: count, total, max ms (of them scavenges: count, max ms) |',
    '|---:|---:|---:|---:|---:|---|---:|---|',
  );
  for (const r of runs) {
    out.push(
      `| ${r.calls} | ${r.round} | ${pct(r.cpuCoreShare)} (${pct(r.cpuSystemShare)}) | ${pct(r.cpuCoreShare / Math.max(1, r.answered))} | ${pct(r.sippCoreShare)} | ${f1(r.eventLoopDelayMs.p50)} / ${f1(r.eventLoopDelayMs.p99)} / ${f1(r.eventLoopDelayMs.max)} | ${pct(r.runQueueWaitShare)} | ${r.gc.count}, ${f1(r.gc.totalMs)}, ${f1(r.gc.maxMs)} (${r.gc.minor}, ${f1(r.gc.minorMaxMs)}) |`,
    );
  }
  out.push('', ...targetLines(t), '', ...setupLines(t));
  return out;
}

/** Met when pacing held in most rounds at that call count. */
function targetLines(t: TelephonySection): string[] {
  const verdict = (calls: number) => {
    const runs = t.concurrent.filter((r) => r.calls === calls);
    if (runs.length === 0) return 'not run';
    const held = runs.filter(pacingHeld).length;
    return `${held * 2 > runs.length ? 'yes' : '**no**'} (held in ${held} of ${runs.length} rounds)`;
  };
  return [
    '| target | met |',
    '|---|---|',
    `| 50 concurrent calls: send interval p99 within 20 \u00b1 5 ms, no packet lost | ${verdict(50)} |`,
    `| 100 concurrent calls per core with pacing held (one process, one thread) | ${verdict(100)} |`,
  ];
}

function setupLines(t: TelephonySection): string[] {
  const s = t.settings;
  const out = [
    '### Call setup time',
    '',
    `${s.setupCalls} calls one after another (INVITE, 200 OK, ACK, BYE) to one \`sipp -sn uas\`, by our user agent and by sipp\u2019s built-in UAC (\`-sn uac -l 1\`), in ${s.rounds} rounds, the order alternating. Ours: \`invite()\` to the leg\u2019s \`answered\` (the INVITE built and sent, the 200 OK parsed, the dialog set up, the ACK sent), performance.now(). sipp\u2019s: its INVITE sent to the 200 OK received, from the microsecond timestamps of its \`-trace_msg\` log (its \`-trace_rtt\` response times are whole milliseconds of a clock moving in 4 ms steps, and read 0 for most of these calls). Most of either figure is sipp\u2019s own UAS, which sends the 200 about a millisecond after its 180.${t.setup.ourFailures ? ` Our calls that failed: ${t.setup.ourFailures}.` : ''}`,
    '',
    '| round | ours p50 ms | ours p99 ms | ours mean ms | sipp UAC p50 ms | sipp UAC p99 ms | sipp UAC mean ms | ours / sipp, p50 |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  t.setup.rounds.forEach((r, i) => {
    out.push(
      `| ${i + 1} | ${f2(r.ours.p50)} | ${f2(r.ours.p99)} | ${f2(r.ours.mean)} | ${f2(r.sipp.p50)} | ${f2(r.sipp.p99)} | ${f2(r.sipp.mean)} | ${f2(r.ours.p50 / r.sipp.p50)} |`,
    );
  });
  const ratios = t.setup.rounds.map((r) => r.ours.p50 / r.sipp.p50);
  out.push(
    '',
    `Median over the rounds: ours p50 ${f2(median(t.setup.rounds.map((r) => r.ours.p50)))} ms, sipp\u2019s UAC p50 ${f2(median(t.setup.rounds.map((r) => r.sipp.p50)))} ms, ours / sipp ${f2(median(ratios))}.`,
    '',
  );
  return out;
}
