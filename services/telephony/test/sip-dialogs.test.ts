import {
  answerScenario,
  digestScenario,
  farEndHangsUpScenario,
  freeUdpAndTcpPort,
  startSipp,
} from '@voice/shared/testing/sip';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inviteOutcome } from '../src/domain/sip-outcome';
import type { SipUserAgent } from '../src/sip';
import { dial, startAgent } from './support/agent';

// Answered calls against sipp on loopback: digest authentication, BYE from either side, a
// re-INVITE from the far end, an answer without SDP.

let agent: SipUserAgent;
beforeAll(async () => {
  agent = await startAgent();
});
afterAll(async () => {
  await agent.close();
});

describe('answered calls', () => {
  it.each(['udp', 'tcp'] as const)(
    'sipp -sn uas -rtp_echo answers over %s; our BYE ends it',
    async (transport) => {
      const sipp = await startSipp({
        scenario: 'uas',
        transport,
        extraArgs: ['-rtp_echo', '-mp', String(await freeUdpAndTcpPort())],
      });
      try {
        const leg = dial(agent, sipp.uri);
        const answered = await leg.waitFor('answered');
        expect(answered.sipCode).toBe(200);
        expect(answered.remoteSdp).toContain('m=audio');
        const end = await leg.hangUp();
        expect(end).toMatchObject({ sipCode: 200, by: 'local', cause: 'response', answered: true });
        expect(inviteOutcome(end)).toEqual({ status: 'answered' });
        await sipp.ranToEnd();
      } finally {
        await sipp.stop();
      }
    },
  );

  it.each(['udp', 'tcp'] as const)(
    'the far end re-INVITEs (we answer with our SDP) and hangs up, over %s',
    async (transport) => {
      const sipp = await startSipp({ scenario: farEndHangsUpScenario({ reInvite: true }), transport });
      try {
        const leg = dial(agent, sipp.uri);
        const end = await leg.ended;
        expect(end).toMatchObject({ sipCode: 200, by: 'remote', cause: 'response', answered: true });
        expect(leg.history.map((p) => p.type)).toEqual(['ringing', 'answered', 'media_updated', 'ended']);
        await sipp.ranToEnd();
      } finally {
        await sipp.stop();
      }
    },
  );

  it('surfaces a 200 OK without SDP so the caller can hang up', async () => {
    const sipp = await startSipp({ scenario: answerScenario({ sdp: false }), transport: 'udp' });
    try {
      const leg = dial(agent, sipp.uri);
      const answered = await leg.waitFor('answered');
      expect(answered.remoteSdp).toBeNull();
      await leg.hangUp();
      await sipp.ranToEnd();
    } finally {
      await sipp.stop();
    }
  });
});

describe('digest authentication', () => {
  it.each([
    [401, 'udp'],
    [407, 'tcp'],
  ] as const)('answers a %i challenge once with credentials (%s)', async (kind, transport) => {
    const sipp = await startSipp({ scenario: digestScenario(kind, 'alice', 's3cret'), transport });
    try {
      const leg = dial(agent, sipp.uri, { username: 'alice', password: 's3cret' });
      const answered = await leg.waitFor('answered');
      expect(answered.sipCode).toBe(200);
      await leg.hangUp();
      await sipp.ranToEnd();
    } finally {
      await sipp.stop();
    }
  });

  it('a wrong password is refused by the far end (sipp verifies the digest)', async () => {
    const sipp = await startSipp({ scenario: digestScenario(401, 'alice', 's3cret'), transport: 'udp' });
    try {
      const leg = dial(agent, sipp.uri, { username: 'alice', password: 'wrong' });
      const end = await leg.ended;
      expect(end).toMatchObject({ sipCode: 403, by: 'remote', answered: false });
      expect(inviteOutcome(end)).toEqual({ status: 'failed', reason: 'carrier_error' });
    } finally {
      await sipp.stop();
    }
  });

  it('without credentials the challenge is the final answer', async () => {
    const sipp = await startSipp({ scenario: digestScenario(407, 'alice', 's3cret'), transport: 'udp' });
    try {
      const end = await dial(agent, sipp.uri).ended;
      expect(end).toMatchObject({ sipCode: 407, by: 'remote', cause: 'response' });
    } finally {
      await sipp.stop();
    }
  });
});
