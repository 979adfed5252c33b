import { performance } from 'node:perf_hooks';
import type { SipUserAgent } from '@voice/telephony-service';

export interface SetupCommand {
  type: 'setup';
  uri: string;
  calls: number;
}

export interface SetupResult {
  type: 'setup-done';
  /** INVITE sent to 200 OK handled (the leg's `answered`), ms, one per call. */
  times: number[];
  failures: number;
}

/** What sipp's built-in UAC sends, so both clients make the same call: PCMU, no media flowing. */
const OFFER = [
  'v=0',
  'o=voice 1 1 IN IP4 127.0.0.1',
  's=-',
  'c=IN IP4 127.0.0.1',
  't=0 0',
  'm=audio 6000 RTP/AVP 0',
  'a=rtpmap:0 PCMU/8000',
  '',
].join('\r\n');

/**
 * Calls one after another, as sipp's UAC does with `-l 1`: INVITE, 200 OK, ACK, BYE. Timed from
 * `invite()` (the request is built and sent) to the `answered` progress (the 200 OK parsed, the
 * dialog set up and ACKed): the part of the call setup the client itself adds, plus the far end's.
 */
export async function sequentialSetups(ua: SipUserAgent, command: SetupCommand): Promise<SetupResult> {
  const times: number[] = [];
  let failures = 0;
  for (let i = 0; i < command.calls; i++) {
    const started = performance.now();
    const leg = ua.invite({
      trunk: { uri: command.uri },
      from: '+15550001111',
      to: '+15550002222',
      sdpOffer: OFFER,
      ringTimeoutMs: 10_000,
    });
    try {
      await leg.waitFor('answered');
      times.push(performance.now() - started);
      await leg.hangUp();
    } catch {
      failures++;
    }
  }
  return { type: 'setup-done', times, failures };
}
