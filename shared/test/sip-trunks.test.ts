import { describe, expect, it } from 'vitest';
import {
  CreateSipTrunkBody,
  parseSipTrunkUri,
  REQUEST_EXAMPLES,
  SIP_TRUNK_LIMITS,
  UpdateSipTrunkBody,
} from '../src/contracts';

const refusal = (uri: string) => {
  const parsed = parseSipTrunkUri(uri);
  return parsed.ok ? undefined : parsed.message;
};

describe('a SIP trunk URI', () => {
  it('reads host, port and transport, with 5060 and udp when omitted', () => {
    expect(parseSipTrunkUri('sip:trunk.example.com')).toEqual({
      ok: true,
      address: { host: 'trunk.example.com', port: 5060, transport: 'udp' },
    });
    expect(parseSipTrunkUri('SIP:Trunk.Example.COM:5080;transport=TCP')).toEqual({
      ok: true,
      address: { host: 'trunk.example.com', port: 5080, transport: 'tcp' },
    });
    expect(parseSipTrunkUri('sip:192.0.2.10:1;transport=udp')).toMatchObject({
      address: { host: '192.0.2.10', port: 1 },
    });
    expect(parseSipTrunkUri('sip:[2001:db8::1]:65535')).toMatchObject({
      address: { host: '2001:db8::1', port: 65535, transport: 'udp' },
    });
    expect(parseSipTrunkUri('sip:localhost')).toMatchObject({ ok: true });
  });

  it('refuses other schemes, TLS included, saying which', () => {
    expect(refusal('sips:trunk.example.com')).toMatch(/sips: .* not supported/);
    expect(refusal('https://trunk.example.com')).toMatch(/must be a sip: URI/);
    expect(refusal('trunk.example.com:5060')).toMatch(/must be a sip: URI/);
    expect(refusal('')).toMatch(/must be a sip: URI/);
  });

  it('refuses credentials in the URI: they belong in username and password', () => {
    expect(refusal('sip:alice:secret@trunk.example.com')).toMatch(/user or password/);
    expect(refusal('sip:alice@trunk.example.com')).toMatch(/user or password/);
  });

  it('refuses ports outside 1 to 65535 and ports that are not numbers', () => {
    for (const port of ['0', '65536', '99999', '-1', '5o60', '', '123456']) {
      expect(refusal(`sip:trunk.example.com:${port}`), port).toMatch(/port must be a number from 1 to 65535/);
    }
  });

  it('refuses transports other than udp and tcp, and any other parameter or header', () => {
    expect(refusal('sip:trunk.example.com;transport=tls')).toMatch(/transport must be udp or tcp/);
    expect(refusal('sip:trunk.example.com;transport=ws')).toMatch(/transport must be udp or tcp/);
    expect(refusal('sip:trunk.example.com;lr')).toMatch(/only parameter is ;transport/);
    expect(refusal('sip:trunk.example.com;transport=udp;maddr=10.0.0.1')).toMatch(/only parameter/);
    expect(refusal('sip:trunk.example.com?subject=x')).toMatch(/headers/);
  });

  it('refuses a missing or malformed host', () => {
    expect(refusal('sip:')).toMatch(/must name a host/);
    expect(refusal('sip::5060')).toMatch(/must name a host/);
    for (const host of [
      '-bad.example.com',
      'bad-.example.com',
      'under_score.example.com',
      '999.1.1.1',
      'a..b',
    ]) {
      expect(refusal(`sip:${host}`), host).toMatch(/not a valid host name or IP address/);
    }
    expect(refusal('sip:[not-v6]:5060')).toMatch(/not a valid host/);
    expect(refusal('sip:[2001:db8::1')).toMatch(/must name a host/);
    expect(refusal(`sip:${'a'.repeat(64)}.example.com`)).toMatch(/not a valid host/);
  });

  it('refuses whitespace, control characters and overlong text', () => {
    expect(refusal('sip:trunk.example.com\r\nVia: x')).toMatch(/spaces or control characters/);
    expect(refusal('sip:trunk example.com')).toMatch(/spaces or control characters/);
    expect(refusal(`sip:${'a.'.repeat(300)}com`)).toMatch(/at most 512 characters/);
  });
});

describe('the SIP trunk bodies', () => {
  const base = { name: 'Carrier', uri: 'sip:trunk.example.com' };

  it('fill the documented defaults', () => {
    expect(CreateSipTrunkBody.parse(base)).toEqual({
      ...base,
      numbers: [],
      is_default: false,
      max_concurrent_calls: null,
      calls_per_second: null,
      ring_timeout_seconds: 30,
      codecs: ['PCMU', 'PCMA'],
    });
  });

  it('accept the documented examples', () => {
    expect(CreateSipTrunkBody.safeParse(REQUEST_EXAMPLES.createSipTrunk).success).toBe(true);
    expect(UpdateSipTrunkBody.safeParse(REQUEST_EXAMPLES.updateSipTrunk).success).toBe(true);
  });

  it('name every problem with its field', () => {
    const result = CreateSipTrunkBody.safeParse({
      name: '',
      uri: 'sip:user:pw@trunk.example.com',
      password: 'secret',
      numbers: ['+14155550100', '+14155550100', '0800'],
      max_concurrent_calls: 0,
      calls_per_second: 5000,
      ring_timeout_seconds: 1,
      codecs: ['G729'],
    });
    expect(result.success).toBe(false);
    const paths = result.error!.issues.map((i) => i.path.join('.'));
    for (const path of [
      'name',
      'uri',
      'numbers',
      'numbers.2',
      'max_concurrent_calls',
      'calls_per_second',
      'ring_timeout_seconds',
      'codecs.0',
    ]) {
      expect(paths, path).toContain(path);
    }
  });

  it('refuse a password without a username, and bound every list and text', () => {
    const noUser = CreateSipTrunkBody.safeParse({ ...base, password: 'secret' });
    expect(noUser.error?.issues).toMatchObject([
      { path: ['username'], message: 'a password needs a username' },
    ]);
    const many = Array.from({ length: SIP_TRUNK_LIMITS.numbers + 1 }, (_, i) => `+1415${5_000_000 + i}`);
    expect(CreateSipTrunkBody.safeParse({ ...base, numbers: many }).success).toBe(false);
    expect(CreateSipTrunkBody.safeParse({ ...base, username: 'u', password: 'p'.repeat(257) }).success).toBe(
      false,
    );
    expect(CreateSipTrunkBody.safeParse({ ...base, username: 'u'.repeat(129) }).success).toBe(false);
    expect(CreateSipTrunkBody.safeParse({ ...base, codecs: [] }).success).toBe(false);
    expect(CreateSipTrunkBody.safeParse({ ...base, codecs: ['PCMA', 'PCMA'] }).success).toBe(false);
  });

  it('let an update change one field, or clear the password with null', () => {
    expect(UpdateSipTrunkBody.parse({ password: null })).toEqual({ password: null });
    expect(UpdateSipTrunkBody.parse({})).toEqual({});
    expect(UpdateSipTrunkBody.safeParse({ uri: 'sips:trunk.example.com' }).success).toBe(false);
  });
});
