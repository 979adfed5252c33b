import { type CallLeg, SipUserAgent } from '../../src/sip';

/** A user agent on loopback with short timers, so a timeout test takes a second, not 32. */
export function startAgent(): Promise<SipUserAgent> {
  return SipUserAgent.start({
    bindAddress: '127.0.0.1',
    timers: { t1Ms: 50, transactionTimeoutMs: 1_500, timerDMs: 2_000 },
  });
}

export const OFFER = [
  'v=0',
  'o=voice 1 1 IN IP4 127.0.0.1',
  's=-',
  'c=IN IP4 127.0.0.1',
  't=0 0',
  'm=audio 40000 RTP/AVP 0 8 101',
  'a=rtpmap:0 PCMU/8000',
  'a=rtpmap:8 PCMA/8000',
  'a=rtpmap:101 telephone-event/8000',
  'a=sendrecv',
  '',
].join('\r\n');

/** Calls +15550002222 from +15550001111 through the trunk at `uri`. */
export function dial(
  agent: SipUserAgent,
  uri: string,
  options: { username?: string; password?: string; ringTimeoutMs?: number } = {},
): CallLeg {
  const { ringTimeoutMs = 10_000, ...credentials } = options;
  return agent.invite({
    trunk: { uri, ...credentials },
    from: '+15550001111',
    to: '+15550002222',
    sdpOffer: OFFER,
    ringTimeoutMs,
  });
}
