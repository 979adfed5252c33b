import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@voice/shared/net';
import { sleep } from '../support';

// sipp (sip-tester) as the far end and as the reference client, on loopback over UDP.

export interface SippUas {
  pid: number;
  uri: string;
  stop(): Promise<void>;
}

/**
 * `sipp -sn uas`: answers every INVITE (180, 200), waits for BYE. With `rtpEcho`, every RTP
 * datagram reaching its media port goes back to its sender (one echo for all calls).
 */
export async function startUas(options: { rtpEcho: boolean }): Promise<SippUas> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-sipp-uas-'));
  const port = await freePort();
  const args = ['-sn', 'uas', '-i', '127.0.0.1', '-p', String(port), '-t', 'u1', '-nostdin'];
  args.push('-mp', String(await freePort()));
  if (options.rtpEcho) args.push('-rtp_echo');
  const child = spawn('sipp', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  let errors = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    errors = (errors + chunk.toString()).slice(-2000);
  });
  const exited = once(child, 'exit');
  const deadline = Date.now() + 10_000;
  while (!udpListening(port)) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`sipp uas did not start: ${errors}`);
    }
    await sleep(20);
  }
  return {
    pid: child.pid!,
    uri: `sip:127.0.0.1:${port}`,
    async stop() {
      if (child.exitCode === null) child.kill('SIGKILL');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * sipp's built-in UAC placing `calls` calls one at a time (`-l 1`) to `target`: INVITE, 200, ACK,
 * BYE. Answers each call's response time (call start to 200 OK) from its `-trace_rtt` file: whole
 * milliseconds of a coarse clock (see the report's notes on what that allows).
 */
export async function uacResponseTimes(target: string, calls: number): Promise<number[]> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-sipp-uac-'));
  try {
    const hostPort = target.replace(/^sip:/, '');
    const args = ['-sn', 'uac', hostPort, '-i', '127.0.0.1', '-p', String(await freePort())];
    args.push('-mp', String(await freePort()), '-t', 'u1', '-nostdin', '-m', String(calls));
    args.push('-l', '1', '-r', '10000', '-timer_resol', '1', '-trace_rtt', '-rtt_freq', '1');
    args.push('-timeout', '60s', '-timeout_error');
    const child = spawn('sipp', args, { cwd: dir, stdio: 'ignore' });
    const [code] = (await once(child, 'exit')) as [number | null];
    const file = readdirSync(dir).find((f) => f.endsWith('_rtt.csv'));
    if (code !== 0 || !file) throw new Error(`sipp uac exited ${code}`);
    return readFileSync(join(dir, file), 'utf8')
      .split('\n')
      .slice(1)
      .map((line) => Number(line.split(';')[1]))
      .filter((ms) => Number.isFinite(ms) && ms >= 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Whether something is bound to the UDP port on loopback (/proc/net/udp; no probe traffic). */
function udpListening(port: number): boolean {
  const hex = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  return readFileSync('/proc/net/udp', 'utf8')
    .split('\n')
    .some((row) => row.trim().split(/\s+/)[1]?.endsWith(hex));
}
