import sdpTransform from 'sdp-transform';
import { describe, expect, it } from 'vitest';
import { buildOffer, parseAnswer, SdpAnswerError } from '../src/media';
import { answerSdp } from './media-support';

describe('SDP offer', () => {
  it('offers PCMU, PCMA and telephone-event 0-16 at 20 ms, sendrecv, on our address and port', () => {
    const offer = sdpTransform.parse(buildOffer({ address: '10.0.0.5', port: 40_000 }));
    const audio = offer.media[0]!;
    expect(offer.connection?.ip).toBe('10.0.0.5');
    expect(audio.port).toBe(40_000);
    expect(audio.payloads).toBe('0 8 101');
    expect(audio.rtp.map((r) => `${r.payload} ${r.codec}/${r.rate}`)).toEqual([
      '0 PCMU/8000',
      '8 PCMA/8000',
      '101 telephone-event/8000',
    ]);
    expect(audio.fmtp).toEqual([{ payload: 101, config: '0-16' }]);
    expect(audio.ptime).toBe(20);
    expect(audio.direction).toBe('sendrecv');
  });

  it('advertises the public address behind NAT and honours the codec order asked for', () => {
    const sdp = buildOffer({
      address: '10.0.0.5',
      port: 40_002,
      publicAddress: '203.0.113.7',
      codecs: ['PCMA'],
    });
    const offer = sdpTransform.parse(sdp);
    expect(offer.connection?.ip).toBe('203.0.113.7');
    expect(offer.origin?.address).toBe('203.0.113.7');
    expect(offer.media[0]!.payloads).toBe('8 101');
    expect(sdp).not.toContain('10.0.0.5');
  });
});

describe('SDP answer', () => {
  it('reads the chosen codec, the far address and its telephone-event payload type', () => {
    const answer = answerSdp(5004, '8 96').replace(
      'a=rtpmap:101 telephone-event',
      'a=rtpmap:96 telephone-event',
    );
    expect(parseAnswer(answer)).toEqual({
      codec: 'PCMA',
      payloadType: 8,
      remoteAddress: '127.0.0.1',
      remotePort: 5004,
      remoteRtcpPort: 5005,
      telephoneEventPayloadType: 96,
      ptimeMs: 20,
      direction: 'sendrecv',
    });
  });

  it('takes a media-level address over the session one and works without telephone-event', () => {
    const answer = answerSdp(6000, '0').replace('a=ptime:20', 'c=IN IP4 192.0.2.10');
    const media = parseAnswer(answer);
    expect(media.remoteAddress).toBe('192.0.2.10');
    expect(media.codec).toBe('PCMU');
    expect(media.telephoneEventPayloadType).toBeUndefined();
  });

  it.each([
    [
      'no common codec',
      answerSdp(5004, '18').replace('a=rtpmap:0 PCMU/8000', 'a=rtpmap:18 G729/8000'),
      /no codec in common/,
    ],
    ['a rejected stream (port 0)', answerSdp(0), /port 0/],
    ['no c= line', answerSdp(5004).replace('c=IN IP4 127.0.0.1\r\n', ''), /no connection address/],
    ['no audio at all', answerSdp(5004).replace('m=audio', 'm=video'), /no plain RTP audio/],
    ['secure RTP we did not offer', answerSdp(5004).replace('RTP/AVP', 'RTP/SAVP'), /no plain RTP audio/],
    ['an oversized body', `${answerSdp(5004)}a=x:${'y'.repeat(20_000)}\r\n`, /too large/],
  ])('refuses an answer with %s', (_name, sdp, message) => {
    expect(() => parseAnswer(sdp)).toThrow(SdpAnswerError);
    expect(() => parseAnswer(sdp)).toThrow(message);
  });

  it('refuses PCMA when we offered only PCMU', () => {
    expect(() => parseAnswer(answerSdp(5004, '8'), ['PCMU'])).toThrow(SdpAnswerError);
  });
});
