import { randomUUID } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { callRpc, HEALTH, TELEPHONY } from '@voice/shared';
import { infraModes } from '@voice/shared/testing';
import { answerScenario, optionsScenario, startSipp } from '@voice/shared/testing/sip';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { trunkHealthRepository } from '../src';
import { DialHarness, FAST, until } from './support/dial-harness';

// The life of a telephony instance around its calls: OPTIONS keep-alive to trunks, and a stop that
// ends live calls with BYE before the SIP user agent closes.

describe.each(infraModes())('a telephony instance (%s)', (mode) => {
  const h = new DialHarness(mode);

  beforeAll(async () => {
    await h.setUp();
    await h.start();
  }, 30_000);
  afterAll(() => h.tearDown(), 30_000);

  it('pings each trunk with OPTIONS and keeps the latest result', async () => {
    const sipp = await startSipp({ scenario: optionsScenario('200 OK'), transport: 'udp' });
    try {
      const trunk = await h.trunk(sipp.uri);
      await h.start({ keepAliveMs: 30_000 });
      await until(
        async () => (await trunkHealthRepository.latest(h.sql, h.accountId)).length > 0,
        10_000,
        'a keep-alive result',
      );
      const [health] = await trunkHealthRepository.latest(h.sql, h.accountId);
      expect(health).toMatchObject({ trunk_id: trunk, ok: true, sip_code: 200, last_error: null });
      expect(health!.latency_ms).toBeGreaterThanOrEqual(0);
      // The account sees it on the trunk; public health counts it, naming no trunk.
      const seen = await callRpc(h.bus, TELEPHONY.getTrunk, { trunk_id: trunk }, h.ctx);
      expect(seen.health).toMatchObject({ status: 'reachable', sip_code: 200, detail: null });
      expect(Date.parse(seen.health.checked_at!)).toBeGreaterThan(0);
      const reply = await callRpc(h.bus, HEALTH.telephony, {}, h.ctx);
      expect(reply.trunks).toEqual({ total: 1, reachable: 1, unreachable: 0, unknown: 0 });
      await sipp.ranToEnd();
    } finally {
      await sipp.stop();
    }
  });

  it('stopping ends its live calls with BYE, each with its ended event', async () => {
    const sipp = await startSipp({ scenario: answerScenario({ sdp: true }), transport: 'udp' });
    try {
      const trunk = await h.trunk(sipp.uri);
      const stopping = await h.start({ speak: async () => new Int16Array(8000 * 30) });
      const callId = randomUUID();
      // Only the new instance dials while the others stand by to relay what it leaves behind.
      const reply = await stopping.parts.dialer.dial(h.accountId, {
        call_id: callId,
        trunk_id: trunk,
        source_number: '+15550001111',
        destination_number: '+15550002222',
        speech: { language: 'en-US', voice: null, start_flow: 'hello', end_flow: 'bye' },
      });
      expect(reply.instance).toBe(stopping.parts.instance);
      await until(() => h.of(callId).some((e) => e.type === 'answered'), 10_000, 'answered');
      await stopping.stop();
      expect(stopping.parts.userAgent()).toBeDefined();
      const events = await h.ended(callId);
      expect(events.at(-1)!.end).toMatchObject({
        status: 'completed',
        call_end_reason: 'agent_hung_up',
        ended_by: 'system',
        detail: 'the telephony service stopped',
        recorded: true,
      });
      // sipp's scenario ends with our BYE and its 200.
      await sipp.ranToEnd();
    } finally {
      await sipp.stop();
    }
  });
});

describe.each(infraModes())('a telephony instance pinging a trunk that does not answer (%s)', (mode) => {
  // A harness of its own: the instance under test is the only one pinging, so the ping in flight
  // when it stops is its own.
  const h = new DialHarness(mode);

  beforeAll(() => h.setUp(), 30_000);
  afterAll(() => h.tearDown(), 30_000);

  it('stops without waiting for the keep-alive ping to time out', async () => {
    // The far end hears the OPTIONS and never answers it.
    const silent = createSocket('udp4');
    await new Promise<void>((resolve) => silent.bind(0, '127.0.0.1', resolve));
    const pinged = new Promise<void>((resolve) => silent.once('message', () => resolve()));
    try {
      // A transaction timeout far past this test's own: a stop that waited for it never returns here.
      const pinging = await h.start({
        keepAliveMs: 30_000,
        sipTimers: { ...FAST.sipTimers, transactionTimeoutMs: 3_600_000 },
      });
      await h.trunk(`sip:127.0.0.1:${silent.address().port}`);
      await pinged;
      await pinging.stop();
    } finally {
      silent.close();
    }
  });
});
