import { describe, expect, it } from 'vitest';
import { digestAuthorization, parseDigestChallenge } from '../src/sip/digest';
import { header, headerList, parseMessage, SIP_LIMITS, serializeMessage } from '../src/sip/message';
import { TcpFramer } from '../src/sip/tcp-framer';

// The pure parts of the SIP stack: parsing untrusted messages, framing TCP, digest.

const RESPONSE = [
  'SIP/2.0 180 Ringing',
  'v: SIP/2.0/UDP 10.0.0.1:5060;branch=z9hG4bK1, SIP/2.0/UDP 10.0.0.2;branch=z9hG4bK2',
  'f: <sip:a@x>;tag=1',
  't: "Bob, Jr" <sip:b@x>;tag=2',
  'i: abc',
  'CSeq: 1 INVITE',
  'Subject: folded',
  '  line',
  'l: 4',
  '',
  'v=0\r\nextra',
].join('\r\n');

describe('parseMessage', () => {
  it('expands compact forms, unfolds lines, splits lists, cuts the body at Content-Length', () => {
    const parsed = parseMessage(Buffer.from(RESPONSE));
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.message).toMatchObject({ kind: 'response', status: 180, reason: 'Ringing', body: 'v=0\r' });
    expect(header(parsed.message, 'call-id')).toBe('abc');
    expect(header(parsed.message, 'subject')).toBe('folded line');
    expect(headerList(parsed.message, 'via')).toHaveLength(2);
    expect(headerList(parsed.message, 'to')).toEqual(['"Bob, Jr" <sip:b@x>;tag=2']);
  });

  it.each([
    ['no blank line', 'SIP/2.0 200 OK\r\nVia: x'],
    ['a bad start line', 'HELLO\r\nVia: a\r\nCall-ID: b\r\nCSeq: 1 X\r\nFrom: a\r\nTo: b\r\n\r\n'],
    ['a missing Call-ID', 'INVITE sip:a@b SIP/2.0\r\nVia: a\r\nCSeq: 1 X\r\nFrom: a\r\nTo: b\r\n\r\n'],
    ['a header without colon', 'SIP/2.0 200 OK\r\nnot a header\r\n\r\n'],
    ['a Content-Length beyond the data', RESPONSE.replace('l: 4', 'l: 400')],
    ['a non-numeric Content-Length', RESPONSE.replace('l: 4', 'l: -1')],
    ['an oversized message', `${RESPONSE}${'x'.repeat(SIP_LIMITS.maxMessageBytes)}`],
    ['too many headers', `SIP/2.0 200 OK\r\n${'X-A: 1\r\n'.repeat(SIP_LIMITS.maxHeaders + 1)}\r\n`],
  ])('refuses %s without throwing', (_name, text) => {
    expect(parseMessage(Buffer.from(text)).ok).toBe(false);
  });

  it('round-trips through the serializer with the right Content-Length', () => {
    const parsed = parseMessage(Buffer.from(RESPONSE));
    if (!parsed.ok) throw new Error(parsed.error);
    const again = parseMessage(serializeMessage({ ...parsed.message, body: 'héllo' }));
    expect(again.ok && again.message.body).toBe('héllo');
    expect(serializeMessage(parsed.message).toString()).toContain('Call-ID: abc\r\nCSeq: 1 INVITE');
  });
});

describe('TcpFramer', () => {
  it('cuts messages split across chunks, skipping CRLF keep-alives', () => {
    const framer = new TcpFramer();
    const message = Buffer.from(RESPONSE.replace('v=0\r\nextra', 'v=0\n'));
    const stream = Buffer.concat([Buffer.from('\r\n\r\n'), message, message]);
    const first = framer.push(stream.subarray(0, 30));
    const rest = framer.push(stream.subarray(30));
    expect(first).toEqual({ ok: true, frames: [] });
    expect(rest.ok && rest.frames.map((f) => f.toString())).toEqual([message.toString(), message.toString()]);
  });

  it('refuses a stream without Content-Length or with an endless header', () => {
    expect(new TcpFramer().push(Buffer.from('SIP/2.0 200 OK\r\nVia: a\r\n\r\n')).ok).toBe(false);
    expect(new TcpFramer().push(Buffer.alloc(SIP_LIMITS.maxHeaderBytes + 1, 0x41)).ok).toBe(false);
  });
});

describe('digest', () => {
  // The worked example of RFC 2617 section 3.5 (same arithmetic as SIP's qop=auth).
  it('computes the RFC 2617 example response', () => {
    const challenge = parseDigestChallenge(
      'Digest realm="testrealm@host.com", qop="auth,auth-int", nonce="dcd98b7102dd2f0e8b11d0f600bfb0c093", opaque="5ccc069c403ebaf9f0171e9517f40e41"',
    );
    if (!challenge) throw new Error('challenge not parsed');
    const value = digestAuthorization(
      challenge,
      { username: 'Mufasa', password: 'Circle Of Life' },
      { method: 'GET', uri: '/dir/index.html' },
      1,
      '0a4f113b',
    );
    expect(value).toContain('response="6629fae49393a05397450978507c4ef1"');
    expect(value).toContain('nc=00000001');
    expect(value).not.toContain('Circle Of Life');
  });
});
