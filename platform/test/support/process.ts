import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { testInfra } from '@voice/shared/testing';

export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

export interface PlatformProcess {
  child: ChildProcess;
  url: string | undefined;
  output: () => string;
  /** Sends the signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  exited: Promise<number | null>;
}

/**
 * Runs `platform/src/main.ts <role>` as its own process, exactly as docs/operations.md and the infra
 * scripts do, and waits for the start-up banner (or an exit, for start-up failure tests).
 */
export async function spawnPlatform(
  role: string,
  env: Record<string, string | undefined>,
  options: { waitForUrl?: boolean; timeoutMs?: number } = {},
): Promise<PlatformProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'platform/src/main.ts', role], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let url: string | undefined;
  if (options.waitForUrl ?? true) {
    const deadline = Date.now() + (options.timeoutMs ?? 90_000);
    let done = false;
    void exited.then(() => {
      done = true;
    });
    while (!url && !done && Date.now() < deadline) {
      url = /running at (http:\/\/\S+)/.exec(output)?.[1];
      if (!url) await new Promise((r) => setTimeout(r, 50));
    }
    if (!url) {
      child.kill('SIGKILL');
      throw new Error(`platform ${role} did not start:\n${output}`);
    }
  }
  return {
    child,
    url,
    output: () => output,
    exited,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}

/**
 * Waits for a line in a process's output (roles other than the gateway print no banner). The
 * deadline only catches a hang: a start with a cold compile cache on a loaded machine took over 30 s.
 */
export async function waitForOutput(
  proc: PlatformProcess,
  pattern: RegExp,
  timeoutMs = 90_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!pattern.test(proc.output())) {
    if (proc.child.exitCode !== null || Date.now() > deadline) {
      throw new Error(`no ${pattern} from the process:\n${proc.output()}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A service role as its own process, once it reports that it started. */
export async function spawnService(
  role: string,
  env: Record<string, string | undefined>,
  timeoutMs?: number,
): Promise<PlatformProcess> {
  const proc = await spawnPlatform(role, { ...env, LOG_LEVEL: 'info' }, { waitForUrl: false });
  await waitForOutput(proc, /"msg":"started"/, timeoutMs);
  return proc;
}

/**
 * The environment a test's service processes share on NATS: the test's database, a bus prefix of
 * their own (`prefix` and random hex: subjects, streams and durables apart from any other run's),
 * the test's admin token, a recording link secret, an ephemeral port on loopback and, when given,
 * the simulated carrier's time scale. `extra` adds settings or overrides these.
 */
export function natsProcessEnv(
  options: { databaseUrl: string; prefix: string; adminToken: string; simTimeScale?: number },
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    NATS_URL: testInfra().natsUrl!,
    DATABASE_URL: options.databaseUrl,
    BUS_PREFIX: `${options.prefix}${randomBytes(6).toString('hex')}`,
    ADMIN_TOKEN: options.adminToken,
    RECORDING_URL_SECRET: `recording-${randomBytes(24).toString('hex')}`,
    PORT: '0',
    HOST: '127.0.0.1',
    ...(options.simTimeScale === undefined ? {} : { SIM_TIME_SCALE: String(options.simTimeScale) }),
    ...extra,
  };
}
