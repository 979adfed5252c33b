import { rejectScenario, ringUntilCancelScenario, startSipp } from '@voice/shared/testing/sip';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inviteOutcome } from '../src/domain/sip-outcome';
import type { SipUserAgent } from '../src/sip';
import { dial, startAgent } from './support/agent';

// Every final response a trunk gives to our INVITE, from a real sipp far end on loopback, through
// to the call outcome the platform records.

let agent: SipUserAgent;
beforeAll(async () => {
  agent = await startAgent();
});
afterAll(async () => {
  await agent.close();
});

const cases = [
  { status: '486 Busy Here', outcome: { status: 'busy', reason: 'busy' }, transport: 'udp' },
  { status: '600 Busy Everywhere', outcome: { status: 'busy', reason: 'busy' }, transport: 'tcp' },
  {
    status: '480 Temporarily Unavailable',
    outcome: { status: 'no_answer', reason: 'no_answer' },
    transport: 'udp',
  },
  { status: '408 Request Timeout', outcome: { status: 'no_answer', reason: 'no_answer' }, transport: 'tcp' },
  { status: '404 Not Found', outcome: { status: 'failed', reason: 'invalid_number' }, transport: 'udp' },
  { status: '603 Decline', outcome: { status: 'failed', reason: 'declined' }, transport: 'udp' },
  {
    status: '503 Service Unavailable',
    outcome: { status: 'failed', reason: 'carrier_error' },
    transport: 'tcp',
  },
] as const;

describe('final responses from a sipp far end', () => {
  it.each(cases)('$status over $transport', async ({ status, outcome, transport }) => {
    const sipp = await startSipp({ scenario: rejectScenario(status), transport });
    try {
      const leg = dial(agent, sipp.uri, { ringTimeoutMs: 10_000 });
      const end = await leg.ended;
      const code = Number(status.slice(0, 3));
      expect(end).toMatchObject({
        sipCode: code,
        sipReason: status.slice(4),
        by: 'remote',
        cause: 'response',
      });
      expect(leg.history.map((p) => p.type)).toEqual(['trying', 'ringing', 'ended']);
      expect(inviteOutcome(end)).toEqual(outcome);
      // sipp exits 0 only once it saw our ACK for the failure.
      await sipp.ranToEnd();
    } finally {
      await sipp.stop();
    }
  });

  it('rings with early media until the ring timeout, then CANCELs: no_answer', async () => {
    const sipp = await startSipp({ scenario: ringUntilCancelScenario(), transport: 'udp' });
    try {
      const leg = dial(agent, sipp.uri, { ringTimeoutMs: 300 });
      const ringing = await leg.waitFor('ringing');
      expect(ringing.sipCode).toBe(183);
      expect(ringing.earlySdp).toContain('m=audio');
      const end = await leg.ended;
      expect(end).toMatchObject({ sipCode: 487, by: 'timeout', cause: 'ring_timeout', answered: false });
      expect(inviteOutcome(end)).toEqual({ status: 'no_answer', reason: 'no_answer' });
      await sipp.ranToEnd();
    } finally {
      await sipp.stop();
    }
  });

  it('our hang-up while it rings CANCELs over TCP: cancelled, by us', async () => {
    const sipp = await startSipp({ scenario: ringUntilCancelScenario(), transport: 'tcp' });
    try {
      const leg = dial(agent, sipp.uri, { ringTimeoutMs: 10_000 });
      await leg.waitFor('ringing');
      const end = await leg.hangUp();
      expect(end).toMatchObject({ sipCode: 487, by: 'local', cause: 'cancelled', answered: false });
      await sipp.ranToEnd();
    } finally {
      await sipp.stop();
    }
  });
});
