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
