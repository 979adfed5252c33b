import { readdirSync, readFileSync } from 'node:fs';
import { cpuSecondsOf } from '../support';

/**
 * CPU seconds of a process (`own`: utime + stime) and of its children that have ended
 * (`children`: cutime + cstime), Linux /proc: for the service host, its Node process, and every
 * pocketsphinx, espeak-ng, flite and sox it ran, once each has exited and been reaped.
 */
export function cpuOf(pid: number): { own: number; children: number } {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return {
      own: (Number(fields[11]) + Number(fields[12])) / 100,
      children: (Number(fields[13]) + Number(fields[14])) / 100,
    };
  } catch {
    return { own: 0, children: 0 };
  }
}

/** The processes named `comm` whose parent is `parent` (Linux /proc). */
export function childrenNamed(parent: number, comm: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (name === comm && ppid === parent) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/**
 * The CPU of this process's baresip children (the scripted callees), which come and go during a
 * run: each one's last reading, sampled every half second, summed.
 */
export class CalleeCpu {
  readonly #last = new Map<number, number>();
  readonly #timer: NodeJS.Timeout;

  constructor() {
    this.#sample();
    this.#timer = setInterval(() => this.#sample(), 500);
  }

  /** CPU seconds the callees used since the sampler started, up to half a second short per callee. */
  stop(): number {
    clearInterval(this.#timer);
    this.#sample();
    let total = 0;
    for (const seconds of this.#last.values()) total += seconds;
    return total;
  }

  #sample(): void {
    for (const pid of childrenNamed(process.pid, 'baresip')) this.#last.set(pid, cpuSecondsOf(pid));
  }
}
