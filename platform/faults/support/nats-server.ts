import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { connect as tcpConnect } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { freePort } from '../../test/support/ports';

/** The Debian package's binary (infra/scripts/start-nats.sh looks in the same places). */
export function natsServerBinary(): string {
  if (existsSync('/usr/sbin/nats-server')) return '/usr/sbin/nats-server';
  for (const dir of (process.env.PATH ?? '').split(':')) {
    if (dir && existsSync(`${dir}/nats-server`)) return `${dir}/nats-server`;
  }
  throw new Error(
    'no nats-server binary (looked at /usr/sbin/nats-server and PATH): apt-get install nats-server',
  );
}

async function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = tcpConnect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export interface NatsServer {
  url: string;
  port: number;
  /**
   * Stops the server (SIGTERM: a clean stop that flushes JetStream; SIGKILL: a crash), leaves it
   * down for `downMs` and starts it again on the same port and store; resolves once JetStream
   * answers again.
   */
  restart(downMs?: number, signal?: NodeJS.Signals): Promise<{ downMs: number }>;
  stop(): Promise<void>;
  log(): string;
}

/**
 * A nats-server of the test's own, with JetStream in `storeDir`, so the test can restart it.
 * Ready once the monitoring endpoint says JetStream is enabled.
 */
export async function startNatsServer(storeDir: string): Promise<NatsServer> {
  const binary = natsServerBinary();
  const port = await freePort();
  const monitor = await freePort();
  let output = '';
  let proc: ChildProcess | undefined;

  const launch = async (): Promise<void> => {
    const child = spawn(
      binary,
      ['-a', '127.0.0.1', '-p', String(port), '-m', String(monitor), '-js', '-sd', storeDir],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    proc = child;
    child.stdout?.on('data', (c: Buffer) => {
      output += c.toString();
    });
    child.stderr?.on('data', (c: Buffer) => {
      output += c.toString();
    });
    const deadline = Date.now() + 20_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`nats-server exited at start:\n${output.slice(-2000)}`);
      if (await answers(port)) {
        const health = await fetch(`http://127.0.0.1:${monitor}/healthz?js-enabled-only=true`).then(
          (r) => r.ok,
          () => false,
        );
        if (health) return;
      }
      if (Date.now() > deadline) throw new Error(`nats-server not ready on ${port}:\n${output.slice(-2000)}`);
      await delay(50);
    }
  };

  const stopProcess = async (signal: NodeJS.Signals = 'SIGTERM'): Promise<void> => {
    const child = proc;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill(signal);
    const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(killer);
  };

  await launch();
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    async restart(downMs = 0, signal: NodeJS.Signals = 'SIGTERM') {
      const started = Date.now();
      await stopProcess(signal);
      await delay(downMs);
      await launch();
      return { downMs: Date.now() - started };
    },
    stop: () => stopProcess(),
    log: () => output,
  };
}
