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
 * BYE. Answers each call's INVITE-sent to 200-OK-received time, ms, from its `-trace_msg` log,
 * whose entries carry microsecond timestamps (its `-trace_rtt` figures are whole milliseconds of a
 * clock that moves in 4 ms steps: too coarse for calls that take one or two).
 */
export async function uacSetupTimes(target: string, calls: number): Promise<number[]> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-sipp-uac-'));
  try {
    const hostPort = target.replace(/^sip:/, '');
    const args = ['-sn', 'uac', hostPort, '-i', '127.0.0.1', '-p', String(await freePort())];
    args.push('-mp', String(await freePort()), '-t', 'u1', '-nostdin', '-m', String(calls));
    args.push('-l', '1', '-r', '10000', '-timer_resol', '1', '-trace_msg');
    args.push('-timeout', '60s', '-timeout_error');
    const child = spawn('sipp', args, { cwd: dir, stdio: 'ignore' });
    const [code] = (await once(child, 'exit')) as [number | null];
    const file = readdirSync(dir).find((f) => f.endsWith('_messages.log'));
    if (code !== 0 || !file) throw new Error(`sipp uac exited ${code}`);
    return setupTimesFromTrace(readFileSync(join(dir, file), 'utf8'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const ENTRY = /^-{10,} (\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2}\.\d+)$/m;

/** Pairs each INVITE sent with the 200 OK to it received, by Call-ID, in sipp's message log. */
export function setupTimesFromTrace(log: string): number[] {
  const invites = new Map<string, { day: number; ms: number }>();
  const times: number[] = [];
  for (const entry of log.split(/^(?=-{10,} \d{4}-)/m)) {
    const stamp = ENTRY.exec(entry);
    const callId = /^Call-ID:\s*(\S+)/im.exec(entry)?.[1];
    if (!stamp || !callId) continue;
    const [, y, mo, d, h, mi, sec] = stamp.map(Number) as number[];
    // Day and time of day apart: one sum of both in ms would lose the microseconds to rounding.
    const at = { day: Date.UTC(y!, mo! - 1, d!), ms: ((h! * 60 + mi!) * 60 + sec!) * 1000 };
    if (/^UDP message sent[^\n]*\n\s*INVITE /m.test(entry)) invites.set(callId, at);
    else if (/^SIP\/2\.0 200 /m.test(entry) && /^CSeq:\s*\d+ INVITE/im.test(entry)) {
      const sent = invites.get(callId);
      if (sent === undefined) continue;
      invites.delete(callId);
      times.push(at.day - sent.day + (at.ms - sent.ms));
    }
  }
  return times;
}

/** Whether something is bound to the UDP port on loopback (/proc/net/udp; no probe traffic). */
function udpListening(port: number): boolean {
  const hex = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  return readFileSync('/proc/net/udp', 'utf8')
    .split('\n')
    .some((row) => row.trim().split(/\s+/)[1]?.endsWith(hex));
}
