import { type Baresip, startBaresip } from '@voice/shared/testing/sip';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type RtpPortPool, RtpSession } from '../src/media';
import type { SipUserAgent } from '../src/sip';
import { testPool } from './media-support';
import { startAgent } from './support/agent';
import { until } from './support/dial-harness';

// DTMF out on a real call: our user agent dials baresip, our RTP session sends RFC 4733 digits,
// and baresip (a SIP phone of its own, not our code) reports each one it received. The dial path
// sends none yet (no flow asks for a key); this proves the media side does it to a real endpoint.

let agent: SipUserAgent;
let baresip: Baresip;
let pool: RtpPortPool;

beforeAll(async () => {
  agent = await startAgent();
  baresip = await startBaresip('Hello.');
  pool = testPool();
}, 30_000);
afterAll(async () => {
  await baresip?.stop();
  await agent?.close();
});

it('sends digits that baresip receives, in order, once each', async () => {
  const session = await RtpSession.open({ pool, localAddress: '127.0.0.1' });
  try {
    const leg = agent.invite({
      trunk: { uri: baresip.uri },
      from: '+15550001111',
      to: '+15550002222',
      sdpOffer: session.localDescription(),
      ringTimeoutMs: 10_000,
    });
    const answered = await leg.waitFor('answered');
    session.setRemoteDescription(answered.remoteSdp!);
    session.start();
    session.markAnswered();
    expect(baresip.receivedDtmf()).toBe('');
    await session.sendDtmf('159#*0');
    await until(() => baresip.receivedDtmf().length >= 6, 5_000, 'baresip to receive six digits');
    expect(baresip.receivedDtmf()).toBe('159#*0');
    await leg.hangUp();
  } finally {
    await session.close();
  }
}, 30_000);
