import type { Socket } from 'node:dgram';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type RtpPortPool, RtpSession } from '../src/media';
import { encodeG711 } from '../src/media/codec';
import { parseRtp, serializeRtp } from '../src/media/rtp-packet';
import { answerSdp, rawSocket, testPool } from './media-support';

let pool: RtpPortPool;
let far: Socket;
let session: RtpSession;

beforeEach(async () => {
  pool = testPool();
  far = await rawSocket();
  session = await RtpSession.open({ pool, localAddress: '127.0.0.1', jitter: { targetDelayMs: 100 } });
});
afterEach(async () => {
  await session.close();
  far.close();
});

/** A 20 ms PCMU packet whose samples all hold `level`, so the order of play can be read back. */
function levelPacket(seq: number, level: number): Buffer {
  return serializeRtp({
    payloadType: 0,
    sequenceNumber: seq,
    timestamp: seq * 160,
    ssrc: 0x1234,
    marker: false,
    payload: encodeG711('PCMU', new Int16Array(160).fill(level)),
  });
}

function sendRaw(data: Buffer, port: number): void {
  far.send(data, port, '127.0.0.1');
}

describe('RTP session receiving from a raw far end', () => {
  it('plays out-of-order and duplicated packets in sequence, once each', async () => {
    // Our SDP says the far end listens on port 9; it really sends from elsewhere (a NAT).
    session.setRemoteDescription(answerSdp(9));
    const levels: number[] = [];
    session.on('audio', (pcm) => {
      if (pcm[80] !== 0) levels.push(Math.round(pcm[80]! / 1500));
    });
    session.start();
    const order = [1, 3, 2, 2, 5, 4, 4, 7, 6, 8, 10, 9, 9, 1];
    for (const seq of order) sendRaw(levelPacket(seq, seq * 1500), session.rtpPort);
    await vi.waitFor(() => expect(levels.length).toBe(10), { timeout: 10_000, interval: 20 });
    expect(levels).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(session.stats().duplicate).toBe(4);

    // Symmetric RTP: our packets now go where the far end really sends from, not to port 9.
    const received = new Promise<Buffer>((resolve) => far.once('message', resolve));
    const packet = parseRtp(await received, new Set([0]));
    expect(packet?.payloadType).toBe(0);

    // A packet for a slot already played is late: counted, never played.
    sendRaw(levelPacket(2, 2 * 1500), session.rtpPort);
    await vi.waitFor(() => expect(session.stats().late).toBe(1), { timeout: 5000 });
    expect(levels).toHaveLength(10);
  });

  it('ignores malformed and unexpected datagrams without crashing, then still hears the far end', async () => {
    session.setRemoteDescription(answerSdp(9));
    session.start();
    const good = levelPacket(100, 9000);
    const badVersion = Buffer.from(good);
    badVersion[0] = 0x40; // version 1
    const csrcOverflow = Buffer.from(good.subarray(0, 16));
    csrcOverflow[0] = 0x8f; // claims 15 CSRCs in a 16-byte datagram
    const extensionOverflow = Buffer.from(good.subarray(0, 16));
    extensionOverflow[0] = 0x90; // header extension bit, extension longer than the datagram
    extensionOverflow.writeUInt16BE(0xffff, 14);
    const paddingOverflow = Buffer.from(good);
    paddingOverflow[0] = 0xa0; // padding bit, padding length byte beyond the payload
    paddingOverflow[paddingOverflow.length - 1] = 250;
    const wrongType = Buffer.from(good);
    wrongType[1] = 18; // G.729: not negotiated
    const noPayload = Buffer.from(good.subarray(0, 12));
    const junk = [
      Buffer.alloc(0),
      Buffer.from('hello'),
      Buffer.alloc(40, 0xff),
      Buffer.alloc(2000, 0x80),
      badVersion,
      csrcOverflow,
      extensionOverflow,
      paddingOverflow,
      wrongType,
      noPayload,
    ];
    for (const datagram of junk) {
      sendRaw(datagram, session.rtpPort);
      sendRaw(datagram, session.rtpPort + 1);
    }
    const rtcp: unknown[] = [];
    session.on('rtcp', (r) => rtcp.push(r));
    await vi.waitFor(() => expect(session.stats().packetsIgnored).toBe(junk.length), { timeout: 5000 });
    expect(session.stats().packetsReceived).toBe(0);
    expect(rtcp).toEqual([]);

    const heard: number[] = [];
    session.on('audio', (pcm) => heard.push(pcm[0]!));
    sendRaw(good, session.rtpPort);
    await vi.waitFor(() => expect(heard.some((x) => Math.abs(x - 9000) < 600)).toBe(true), { timeout: 5000 });
    expect(session.stats().packetsReceived).toBe(1);
  });

  it('does not take media from a second source once it has latched onto the first', async () => {
    session.setRemoteDescription(answerSdp(9));
    session.start();
    sendRaw(levelPacket(1, 3000), session.rtpPort);
    await vi.waitFor(() => expect(session.stats().packetsReceived).toBe(1), { timeout: 5000 });
    const intruder = await rawSocket();
    try {
      intruder.send(levelPacket(2, 3000), session.rtpPort, '127.0.0.1');
      await vi.waitFor(() => expect(session.stats().packetsIgnored).toBe(1), { timeout: 5000 });
      expect(session.stats().packetsReceived).toBe(1);
    } finally {
      intruder.close();
    }
  });
});
