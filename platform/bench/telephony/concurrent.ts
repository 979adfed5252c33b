import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import type { RtpPortPool, SipUserAgent } from '@voice/telephony-service';
import { percentile, sleep } from '../support';
import { type GcSummary, runQueueWaitNs, udpDropsAtPorts, udpReceiveDrops, watchGc } from './diagnostics';
import { MeasuredCall } from './measured-call';

const ELD_RESOLUTION_MS = 10;

export interface ConcurrentCommand {
  type: 'concurrent';
  uri: string;
  calls: number;
  /** Length of the measured window, every call answered and speaking throughout. */
  seconds: number;
  /** Calls are placed evenly over this long, as a trunk's calls-per-second spreads them. */
  rampMs: number;
}

export interface Distribution {
  count: number;
  p1: number;
  p50: number;
  p99: number;
  max: number;
}

export interface ConcurrentResult {
  type: 'concurrent-done';
  calls: number;
  answered: number;
  failures: string[];
  windowS: number;
  /** Time between consecutive RTP sends of one call, ms (every call's, pooled). */
  interval: Distribution;
  /** |interval - 20 ms|. */
  deviation: Distribution;
  sent: number;
  echoed: number;
  /** Sent in the window and not echoed back by 300 ms after it. */
  lost: number;
  ticksSkipped: number;
  /** Send to echo arrival, ms. */
  echoRtt: Distribution;
  /** CPU of this process over the window, as a share of one core. */
  cpuCoreShare: number;
  /** The part of it spent in the kernel (UDP sends and receives, timers). */
  cpuSystemShare: number;
  eventLoopDelayMs: { p50: number; p99: number; max: number };
  /** Share of the window the event-loop thread was runnable but waiting for a CPU (other work). */
  runQueueWaitShare: number;
  gc: GcSummary;
  /** UDP datagrams dropped by the kernel for a full receive buffer, machine-wide, over the window. */
  udpDrops: number;
  /** Of them, at our RTP sockets (the rest: sipp's one echo socket, or other work). */
  udpDropsOurs: number;
}

/**
 * N concurrent calls to the far end, each playing `speech` in a loop. Measured over a window that
 * opens once every call is answered: each call's send times, packets echoed back, this process's
 * CPU and event-loop delay. `onWindow` marks the window's edges for the runner (sipp's CPU).
 */
export async function concurrentCalls(
  ua: SipUserAgent,
  media: { pool: RtpPortPool; ports: { min: number; max: number }; speech: Int16Array },
  command: ConcurrentCommand,
  onWindow: (edge: 'start' | 'end') => void,
): Promise<ConcurrentResult> {
  const placing: Promise<MeasuredCall>[] = [];
  for (let i = 0; i < command.calls; i++) {
    placing.push(MeasuredCall.place(ua, media.pool, command.uri, media.speech));
    await sleep(command.rampMs / command.calls);
  }
  const settled = await Promise.allSettled(placing);
  const calls = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const failures = settled.flatMap((s) => (s.status === 'rejected' ? [String(s.reason)] : []));
  // A second for the last call's jitter buffer and the first echoes to settle.
  await sleep(1000);

  const delay = monitorEventLoopDelay({ resolution: ELD_RESOLUTION_MS });
  onWindow('start');
  const cpuBefore = process.cpuUsage();
  const waitBefore = runQueueWaitNs();
  const dropsBefore = udpReceiveDrops();
  const oursBefore = udpDropsAtPorts(media.ports.min, media.ports.max);
  const gc = watchGc();
  const from = performance.now();
  for (const call of calls) call.openWindow();
  delay.enable();
  await sleep(command.seconds * 1000);
  delay.disable();
  for (const call of calls) call.closeWindow();
  const windowS = (performance.now() - from) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const waited = runQueueWaitNs() - waitBefore;
  const gcSummary = gc.stop();
  onWindow('end');

  await Promise.all(calls.map((c) => c.hangUp()));
  // Echoes of the window's last packets are still on their way back.
  await sleep(300);
  // Read after the echoes' 300 ms, so drops of the window's last packets are counted.
  const udpDrops = udpReceiveDrops() - dropsBefore;
  const udpDropsOurs = udpDropsAtPorts(media.ports.min, media.ports.max) - oursBefore;
  const results = await Promise.all(calls.map((c) => c.finish()));

  const intervals = results.flatMap((r) => r.intervals);
  const rtts = results.flatMap((r) => r.echoRtts);
  const sum = (pick: (r: (typeof results)[number]) => number) => results.reduce((n, r) => n + pick(r), 0);
  return {
    type: 'concurrent-done',
    calls: command.calls,
    answered: calls.length,
    failures: failures.slice(0, 5),
    windowS,
    interval: distribution(intervals),
    deviation: distribution(intervals.map((i) => Math.abs(i - 20))),
    sent: sum((r) => r.sent),
    echoed: sum((r) => r.echoed),
    lost: sum((r) => r.sent - r.echoed),
    ticksSkipped: sum((r) => r.ticksSkipped),
    echoRtt: distribution(rtts),
    cpuCoreShare: (cpu.user + cpu.system) / 1e6 / windowS,
    cpuSystemShare: cpu.system / 1e6 / windowS,
    eventLoopDelayMs: {
      p50: lateness(delay.percentile(50)),
      p99: lateness(delay.percentile(99)),
      max: lateness(delay.max),
    },
    runQueueWaitShare: waited / 1e9 / windowS,
    gc: gcSummary,
    udpDrops,
    udpDropsOurs,
  };
}

/** The histogram holds whole periods of its 10 ms sampling timer: the lateness is what is beyond. */
const lateness = (ns: number): number => Math.max(0, ns / 1e6 - ELD_RESOLUTION_MS);

export function distribution(values: number[]): Distribution {
  const sorted = Float64Array.from(values).sort();
  const list = Array.from(sorted);
  return {
    count: list.length,
    p1: percentile(list, 1),
    p50: percentile(list, 50),
    p99: percentile(list, 99),
    max: list.length > 0 ? list[list.length - 1]! : Number.NaN,
  };
}
