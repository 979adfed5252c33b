import type { ChildProcess } from 'node:child_process';
import type { Logger } from '@voice/shared';
import { stopServer } from './process';

export interface SupervisorOptions {
  /** The server as first started. */
  first: ChildProcess;
  /** Starts the server again (same folder, same port: the pools keep their URL). */
  restart(): Promise<ChildProcess>;
  log: Logger;
  /** Told of every server process this supervisor starts, to stop it if the process exits abruptly. */
  track(child: ChildProcess): void;
  untrack(child: ChildProcess): void;
  /** Delay before restart attempt `n` (1-based); `restartDelayMs` when omitted. */
  delayMs?: (attempt: number) => number;
  /** How stop() escalates; STOP_STEPS when omitted. */
  stopSteps?: readonly StopStep[];
}

export interface StopStep {
  signal: NodeJS.Signals;
  waitMs: number;
}

export interface Supervisor {
  /** How often the server was restarted after it exited on its own. */
  readonly restarts: number;
  /** The server's current process id; undefined while it is down. */
  pid(): number | undefined;
  /** Stops supervising and stops the server, escalating to SIGKILL; resolves once it is gone. */
  stop(): Promise<void>;
}

/** 250 ms, doubling, at most 5 s: a crash is retried at once, a server that cannot start is not hammered. */
export function restartDelayMs(attempt: number): number {
  return Math.min(250 * 2 ** (attempt - 1), 5_000);
}

/**
 * Fast shutdown first (SIGINT: clients are told, data flushed); a server that ignores it gets the
 * immediate shutdown (SIGQUIT), then SIGKILL, so a stop ends within their sum whatever state the
 * server is in.
 */
export const STOP_STEPS: readonly StopStep[] = [
  { signal: 'SIGINT', waitMs: 10_000 },
  { signal: 'SIGQUIT', waitMs: 3_000 },
  { signal: 'SIGKILL', waitMs: 2_000 },
];

/** Stops a server process step by step; false when even the last step was not seen to end it. */
export async function stopWithEscalation(
  child: ChildProcess,
  log: Logger,
  steps: readonly StopStep[] = STOP_STEPS,
): Promise<boolean> {
  for (const { signal, waitMs } of steps) {
    if (await stopServer(child, waitMs, signal)) return true;
    log.warn({ pid: child.pid, signal, waited_ms: waitMs }, 'embedded PostgreSQL did not stop in time');
  }
  return false;
}

/**
 * Keeps the embedded PostgreSQL running for the life of the process: when the server exits on its
 * own (killed, crashed, out of memory), it is started again on the same folder and port, with a
 * growing delay between failed attempts, until stop(). The database pools reconnect by themselves
 * (see createSql); meanwhile /v1/health answers 503, so a load balancer stops sending work.
 */
export function supervise(options: SupervisorOptions): Supervisor {
  const { log } = options;
  const delayMs = options.delayMs ?? restartDelayMs;
  let current: ChildProcess | undefined = options.first;
  let stopping = false;
  let restarts = 0;
  let wake: (() => void) | undefined;
  let restarting: Promise<void> | undefined;

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  async function restartLoop(exitedAt: number): Promise<void> {
    for (let attempt = 1; !stopping; attempt++) {
      await sleep(delayMs(attempt));
      if (stopping) return;
      try {
        const child = await options.restart();
        options.track(child);
        if (stopping) {
          // stop() ran while this start was under way: it is waiting for this loop to end.
          await stopWithEscalation(child, log, options.stopSteps);
          options.untrack(child);
          return;
        }
        restarts++;
        log.info(
          { pid: child.pid, attempt, down_ms: Math.round(performance.now() - exitedAt), restarts },
          'embedded PostgreSQL restarted',
        );
        watch(child);
        return;
      } catch (error) {
        log.error({ err: error, attempt }, 'embedded PostgreSQL failed to restart; trying again');
      }
    }
  }

  function watch(child: ChildProcess): void {
    current = child;
    child.once('exit', (code, signal) => {
      options.untrack(child);
      if (current === child) current = undefined;
      if (stopping) return;
      log.error({ pid: child.pid, code, signal }, 'embedded PostgreSQL exited unexpectedly; restarting it');
      restarting = restartLoop(performance.now()).finally(() => {
        restarting = undefined;
      });
    });
  }

  watch(options.first);
  options.track(options.first);

  return {
    get restarts() {
      return restarts;
    },
    pid: () => current?.pid,
    async stop() {
      stopping = true;
      wake?.();
      await restarting;
      const child = current;
      if (!child) return;
      const stopped = await stopWithEscalation(child, log, options.stopSteps);
      options.untrack(child);
      if (!stopped) throw new Error(`embedded PostgreSQL (pid ${child.pid}) did not exit even after SIGKILL`);
    },
  };
}
