import { createSocket, type Socket } from 'node:dgram';
import { once } from 'node:events';
import { RtpPortPool } from '../src/media';

/** A range of its own per test process, so test files running side by side do not collide. */
export function testPool(pairs = 8): RtpPortPool {
  const min = 30_000 + (process.pid % 1500) * 20;
  return new RtpPortPool({ min, max: min + pairs * 2 - 1, host: '127.0.0.1' });
}

/** A raw UDP socket on loopback: the far end we control byte by byte. */
export async function rawSocket(): Promise<Socket> {
  const socket = createSocket('udp4');
  socket.bind(0, '127.0.0.1');
  await once(socket, 'listening');
  return socket;
}

/** A minimal answer SDP pointing at `port`, as a far end would send it. */
export function answerSdp(port: number, payloads = '0 101'): string {
  return [
    'v=0',
    'o=- 1 1 IN IP4 127.0.0.1',
    's=-',
    'c=IN IP4 127.0.0.1',
    't=0 0',
    `m=audio ${port} RTP/AVP ${payloads}`,
    'a=rtpmap:0 PCMU/8000',
    'a=rtpmap:8 PCMA/8000',
    'a=rtpmap:101 telephone-event/8000',
    'a=fmtp:101 0-16',
    'a=ptime:20',
    'a=sendrecv',
    '',
  ].join('\r\n');
}

/** RMS of each 20 ms frame. */
export function envelope(pcm: ArrayLike<number>, frame = 160): number[] {
  const out: number[] = [];
  for (let start = 0; start + frame <= pcm.length; start += frame) {
    let sum = 0;
    for (let i = start; i < start + frame; i++) sum += (pcm[i] as number) ** 2;
    out.push(Math.sqrt(sum / frame));
  }
  return out;
}

/** Best Pearson correlation of `needle` against `haystack` over every lag. */
export function bestCorrelation(needle: number[], haystack: number[]): { r: number; lag: number } {
  let best = { r: -1, lag: -1 };
  for (let lag = 0; lag + needle.length <= haystack.length; lag++) {
    const r = pearson(needle, haystack.slice(lag, lag + needle.length));
    if (r > best.r) best = { r, lag };
  }
  return best;
}

function pearson(a: number[], b: number[]): number {
  const n = a.length;
  const ma = a.reduce((s, x) => s + x, 0) / n;
  const mb = b.reduce((s, x) => s + x, 0) / n;
  let num = 0;
  let da = 0;
  let db = 0;
  for (let i = 0; i < n; i++) {
    num += (a[i]! - ma) * (b[i]! - mb);
    da += (a[i]! - ma) ** 2;
    db += (b[i]! - mb) ** 2;
  }
  return da === 0 || db === 0 ? 0 : num / Math.sqrt(da * db);
}
