import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { setTimeout as delay } from 'node:timers/promises';
import { REPO_ROOT } from './process';

export interface ClusterProcess {
  /** gateway-1, call-2, ... as the launcher names them. */
  name: string;
  pid: number;
  url: string | undefined;
  /** Where it serves /metrics (METRICS_PORT set), else undefined. */
  metricsUrl: string | undefined;
}

/**
 * `pnpm start:cluster` (platform/src/cluster.ts) as a child of the test: every component its own
 * process, supervised. The test reads the launcher's `[cluster] NAME ready (pid N)` lines to know
 * each process and kills them by pid; the launcher restarts them, as it would in production.
 */
export class Cluster {
  private readonly lines: string[] = [];
  private readonly current = new Map<string, ClusterProcess>();
  private readonly watches: { pattern: RegExp; found: string[] }[] = [];
  private readonly file: WriteStream;
  private readonly exited: Promise<number | null>;

  private constructor(
    private readonly launcher: ChildProcess,
    logFile: string,
  ) {
    this.file = createWriteStream(logFile);
    this.exited = new Promise((resolve) => launcher.once('exit', (code) => resolve(code)));
    for (const stream of [launcher.stdout!, launcher.stderr!]) {
      createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY }).on('line', (line) => {
        this.file.write(`${line}\n`);
        if (!line.startsWith('[cluster]')) {
          for (const watch of this.watches) if (watch.pattern.test(line)) watch.found.push(line);
          return;
        }
        this.lines.push(line);
        const ready = /^\[cluster\] (\S+) ready \(pid (\d+)\)(?: at (.*))?$/.exec(line);
        if (!ready) return;
        const at = (ready[3] ?? '').split(', ');
        this.current.set(ready[1]!, {
          name: ready[1]!,
          pid: Number(ready[2]),
          url: at.find((a) => a.startsWith('http')),
          metricsUrl: at.find((a) => a.startsWith('metrics '))?.slice('metrics '.length),
        });
      });
    }
  }

  static async start(env: Record<string, string>, logFile: string, timeoutMs = 120_000): Promise<Cluster> {
    const launcher = spawn(process.execPath, ['--import', 'tsx', 'platform/src/cluster.ts'], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const cluster = new Cluster(launcher, logFile);
    await cluster.waitForLine(/^\[cluster\] ready:/, timeoutMs);
    return cluster;
  }

  /** The launcher's own lines so far. */
  events(): string[] {
    return [...this.lines];
  }

  /**
   * The processes' output lines (prefixed `name | `) that match `pattern` from now on, in a list
   * that fills as they come; the launcher's own lines are in `events`.
   */
  watchOutput(pattern: RegExp): string[] {
    const found: string[] = [];
    this.watches.push({ pattern, found });
    return found;
  }

  process(name: string): ClusterProcess {
    const found = this.current.get(name);
    if (!found) throw new Error(`no process ${name} in the cluster`);
    return found;
  }

  /** kill -9 one process, then wait until the launcher restarted it and it reports ready again. */
  async killAndAwaitRestart(
    name: string,
    timeoutMs = 60_000,
  ): Promise<{ oldPid: number; newPid: number; downMs: number }> {
    const before = this.process(name);
    const started = Date.now();
    process.kill(before.pid, 'SIGKILL');
    const deadline = started + timeoutMs;
    for (;;) {
      const now = this.current.get(name);
      if (now && now.pid !== before.pid)
        return { oldPid: before.pid, newPid: now.pid, downMs: Date.now() - started };
      if (Date.now() > deadline)
        throw new Error(`${name} was not restarted within ${timeoutMs} ms:\n${this.tail()}`);
      await delay(25);
    }
  }

  async waitForLine(pattern: RegExp, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let exited = false;
    void this.exited.then(() => {
      exited = true;
    });
    while (!this.lines.some((l) => pattern.test(l))) {
      if (exited) throw new Error(`the cluster launcher exited:\n${this.tail()}`);
      if (Date.now() > deadline) throw new Error(`no ${pattern} within ${timeoutMs} ms:\n${this.tail()}`);
      await delay(50);
    }
  }

  tail(n = 40): string {
    return this.lines.slice(-n).join('\n');
  }

  /** SIGTERM to the launcher (gateways stop first, then services); resolves with its exit code. */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
    if (this.launcher.exitCode === null) this.launcher.kill(signal);
    const code = await this.exited;
    await new Promise((resolve) => this.file.end(resolve));
    return code;
  }
}
