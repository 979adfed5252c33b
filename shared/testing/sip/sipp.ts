import { type ChildProcess, spawn } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '../../src/net';

// sipp (sip-tester) as an independent far end on loopback: one call (-m 1) unless told, a global timeout so a
// stuck scenario cannot hang the run, ready once its port shows up in /proc/net.

export interface Sipp {
  port: number;
  /** `sip:127.0.0.1:<port>;transport=<t>`: the trunk URI to dial. */
  uri: string;
  /** Resolves when sipp exits: code 0 means its scenario ran to the end. */
  exited: Promise<{ code: number | null; output: string }>;
  /** Waits for sipp to exit and fails with its output and error log unless its scenario ran to the end. */
  ranToEnd(): Promise<void>;
  stop(): Promise<void>;
}

export interface SippOptions {
  /** A scenario's XML, or `uas` for sipp's built-in answering scenario. */
  scenario: string | 'uas';
  transport: 'udp' | 'tcp';
  timeoutSeconds?: number;
  /** Calls to take before exiting (default 1); more when keep-alive OPTIONS count as calls too. */
  calls?: number;
  extraArgs?: string[];
}

export async function startSipp(options: SippOptions): Promise<Sipp> {
  const dir = await mkdtemp(path.join(tmpdir(), 'sipp-'));
  const port = await freeUdpAndTcpPort();
  const args = ['-i', '127.0.0.1', '-p', String(port), '-m', String(options.calls ?? 1), '-nostdin'];
  args.push('-t', options.transport === 'udp' ? 'u1' : 't1');
  args.push('-timeout', `${options.timeoutSeconds ?? 15}s`, '-timeout_error', '-trace_err');
  if (options.scenario === 'uas') args.push('-sn', 'uas');
  else {
    await writeFile(path.join(dir, 'scenario.xml'), options.scenario);
    args.push('-sf', 'scenario.xml');
  }
  args.push(...(options.extraArgs ?? []));
  const child = spawn('sipp', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (c: Buffer) => {
    output = (output + c.toString()).slice(-20_000);
  });
  child.stderr?.on('data', (c: Buffer) => {
    output = (output + c.toString()).slice(-20_000);
  });
  const exited = new Promise<{ code: number | null; output: string }>((resolve) =>
    child.once('exit', async (code) => resolve({ code, output: output + (await errorLog(dir)) })),
  );
  await waitForListener(port, options.transport, child, () => output);
  return {
    port,
    uri: `sip:127.0.0.1:${port};transport=${options.transport}`,
    exited,
    ranToEnd: async () => {
      const { code, output } = await exited;
      if (code !== 0)
        throw new Error(`sipp exited ${code}, its scenario did not run to the end:\n${output.slice(-3_000)}`);
    },
    stop: async () => {
      stopChild(child);
      await exited;
      await rm(dir, { recursive: true, force: true });
    },
  };
}

function stopChild(child: ChildProcess): void {
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

async function errorLog(dir: string): Promise<string> {
  const files = (await readdir(dir).catch(() => [])).filter((f) => f.endsWith('_errors.log'));
  const texts = await Promise.all(files.map((f) => readFile(path.join(dir, f), 'utf8').catch(() => '')));
  return texts.join('\n').slice(-4_000);
}

/** A port free for both UDP and TCP right now (sipp binds both in TCP mode). */
export async function freeUdpAndTcpPort(): Promise<number> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const port = await freePort();
    const udpFree = await new Promise<boolean>((resolve) => {
      const probe = createSocket('udp4');
      probe.once('error', () => resolve(false));
      probe.bind(port, '127.0.0.1', () => probe.close(() => resolve(true)));
    });
    if (udpFree) return port;
  }
  throw new Error('no free port');
}

/** Waits (with a deadline) until something listens on the port, reading /proc/net (no probe traffic). */
export async function waitForListener(
  port: number,
  transport: 'udp' | 'tcp',
  child: ChildProcess,
  output: () => string,
): Promise<void> {
  const hex = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null)
      throw new Error(`the far end exited early (${child.exitCode}): ${output().slice(-1_000)}`);
    const table = await readFile(`/proc/net/${transport}`, 'utf8');
    const listening = table.split('\n').some((line) => {
      const cols = line.trim().split(/\s+/);
      return cols[1]?.endsWith(hex) && (transport === 'udp' || cols[3] === '0A');
    });
    if (listening) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  stopChild(child);
  throw new Error(`the far end did not listen on ${transport} ${port} in time`);
}
