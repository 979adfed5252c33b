import { createSocket } from 'node:dgram';
import { createServer } from 'node:net';
import { freeUdpAndTcpPort, optionsScenario, startSipp } from '@voice/shared/testing/sip';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inviteOutcome } from '../src/domain/sip-outcome';
import { SipConfigError, type SipUserAgent } from '../src/sip';
import { dial, OFFER, startAgent } from './support/agent';

// Far ends that misbehave or are not there: garbage answers, closed ports, silence. Each ends the
// call with a cause the platform maps to carrier_error, within the (shortened) transaction timers.

let agent: SipUserAgent;
beforeAll(async () => {
  agent = await startAgent();
});
afterAll(async () => {
  await agent.close();
});

const call = (uri: string) => dial(agent, uri);

describe('misbehaving or missing far ends', () => {
  it('a UDP far end answering garbage is ignored until timer B: no response, carrier_error', async () => {
    const far = createSocket('udp4');
    let received = 0;
    far.on('message', (_data, rinfo) => {
      received++;
      far.send(
        Buffer.from('SIP/2.0 200 OK\r\nthis is not a header\r\n\r\n\u0000\u00ff'),
        rinfo.port,
        rinfo.address,
      );
      far.send(Buffer.alloc(40_000, 0x41), rinfo.port, rinfo.address);
    });
    await new Promise<void>((resolve) => far.bind(0, '127.0.0.1', resolve));
    try {
      const end = await call(`sip:127.0.0.1:${far.address().port}`).ended;
      expect(end).toMatchObject({ sipCode: null, by: 'timeout', cause: 'no_response' });
      expect(inviteOutcome(end)).toEqual({ status: 'failed', reason: 'carrier_error' });
      expect(received).toBeGreaterThan(1); // timer A retransmitted the INVITE
    } finally {
      far.close();
    }
  });

  it('a TCP far end answering garbage loses its connection: transport_error', async () => {
    const server = createServer((socket) => socket.on('data', () => socket.write('garbage\r\n\r\nmore')));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      const end = await call(`sip:127.0.0.1:${port};transport=tcp`).ended;
      expect(end).toMatchObject({ sipCode: null, cause: 'transport_error' });
      expect(inviteOutcome(end)).toEqual({ status: 'failed', reason: 'carrier_error' });
    } finally {
      server.close();
    }
  });

  it('an unreachable UDP trunk times out; an unreachable TCP trunk fails at once', async () => {
    const port = await freeUdpAndTcpPort();
    const udp = await call(`sip:127.0.0.1:${port}`).ended;
    expect(udp).toMatchObject({ cause: 'no_response', by: 'timeout' });
    const tcp = await call(`sip:127.0.0.1:${port};transport=tcp`).ended;
    expect(tcp).toMatchObject({ cause: 'transport_error', by: 'remote' });
  });

  it('an unresolvable trunk host ends the call with transport_error', async () => {
    const end = await call('sip:no-such-host.invalid').ended;
    expect(end).toMatchObject({ cause: 'transport_error' });
  });

  it('rejects unusable trunk URIs and numbers before sending anything', () => {
    expect(() => call('sips:trunk.example.com')).toThrow(SipConfigError);
    expect(() =>
      agent.invite({
        trunk: { uri: 'sip:127.0.0.1' },
        from: 'x y',
        to: '+1',
        sdpOffer: OFFER,
        ringTimeoutMs: 1,
      }),
    ).toThrow(/from must be/);
  });
});

describe('OPTIONS health check', () => {
  it.each(['udp', 'tcp'] as const)('a live trunk answers over %s', async (transport) => {
    const sipp = await startSipp({ scenario: optionsScenario('200 OK'), transport });
    try {
      const result = await agent.options({ uri: sipp.uri });
      expect(result).toMatchObject({ ok: true, sipCode: 200, latencyMs: expect.any(Number) });
      await sipp.ranToEnd();
    } finally {
      await sipp.stop();
    }
  });

  it('a trunk answering 503 is reported as down', async () => {
    const sipp = await startSipp({ scenario: optionsScenario('503 Service Unavailable'), transport: 'udp' });
    try {
      expect(await agent.options({ uri: sipp.uri })).toMatchObject({ ok: false, sipCode: 503 });
    } finally {
      await sipp.stop();
    }
  });

  it('a silent trunk is reported as not answering', async () => {
    const port = await freeUdpAndTcpPort();
    const result = await agent.options({ uri: `sip:127.0.0.1:${port}` });
    expect(result).toMatchObject({ ok: false, sipCode: null, error: 'no response' });
  });
});
