import { describe, expect, it } from 'vitest';
import {
  ConfigError,
  DEFAULT_MAX_CONNECTIONS_PER_IP,
  isEmbedded,
  loadConfig,
  maxConnectionsPerIp,
} from '../src/config';

describe('loadConfig', () => {
  it('gives the documented defaults for an empty environment', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      PORT: 3000,
      HOST: '127.0.0.1',
      DATA_DIR: './.data',
      SIM_TIME_SCALE: 1,
      WEBHOOK_RETRY_BASE_MS: 5000,
    });
    expect(config.DATABASE_URL).toBeUndefined();
    expect(config.NATS_URL).toBeUndefined();
    expect(config.ADMIN_TOKEN).toBeUndefined();
    expect(config.WEBHOOK_ALLOW_PRIVATE).toBeUndefined();
    expect(isEmbedded(config)).toBe(true);
  });

  it('parses typed values and treats empty strings as unset', () => {
    const config = loadConfig({
      PORT: '8080',
      SIM_TIME_SCALE: '0.01',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      NATS_URL: 'nats://127.0.0.1:4222',
      DATABASE_URL: 'postgres://u@h:5432/db',
      ADMIN_TOKEN: '',
    });
    expect(config.PORT).toBe(8080);
    expect(config.SIM_TIME_SCALE).toBe(0.01);
    expect(config.WEBHOOK_ALLOW_PRIVATE).toBe(true);
    expect(config.ADMIN_TOKEN).toBeUndefined();
    expect(isEmbedded(config)).toBe(false);
  });

  it('bounds the heap growth setting (0 = V8 decides), unset by default (the launcher decides)', () => {
    expect(loadConfig({}).HEAP_GROWTH_PERCENT).toBeUndefined();
    expect(loadConfig({ HEAP_GROWTH_PERCENT: '0' }).HEAP_GROWTH_PERCENT).toBe(0);
    expect(loadConfig({ HEAP_GROWTH_PERCENT: '100' }).HEAP_GROWTH_PERCENT).toBe(100);
    for (const bad of ['-1', '401', '1.5', 'lots'])
      expect(() => loadConfig({ HEAP_GROWTH_PERCENT: bad })).toThrow(/HEAP_GROWTH_PERCENT/);
  });

  it('takes METRICS_PORT as a port (0 = a free one), unset by default', () => {
    expect(loadConfig({}).METRICS_PORT).toBeUndefined();
    expect(loadConfig({ METRICS_PORT: '0' }).METRICS_PORT).toBe(0);
    expect(loadConfig({ METRICS_PORT: '9464' }).METRICS_PORT).toBe(9464);
    expect(() => loadConfig({ METRICS_PORT: '70000' })).toThrow(/METRICS_PORT/);
  });

  it('names every bad variable at once', () => {
    let error: unknown;
    try {
      loadConfig({
        PORT: '99999',
        WEBHOOK_ALLOW_PRIVATE: 'maybe',
        ADMIN_TOKEN: 'short',
        DATABASE_URL: 'mysql://x',
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    for (const name of ['PORT', 'WEBHOOK_ALLOW_PRIVATE', 'ADMIN_TOKEN', 'DATABASE_URL'])
      expect(problems).toContain(`${name}:`);
  });
});

describe('TRUST_PROXY', () => {
  it('takes false, a hop count or proxy addresses, and refuses true', () => {
    expect(loadConfig({}).TRUST_PROXY).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '1' }).TRUST_PROXY).toBe(1);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 127.0.0.1' }).TRUST_PROXY).toEqual([
      '10.0.0.0/8',
      '127.0.0.1',
    ]);
    expect(() => loadConfig({ TRUST_PROXY: 'true' })).toThrow(/TRUST_PROXY/);
    expect(() => loadConfig({ TRUST_PROXY: 'everyone' })).toThrow(/TRUST_PROXY/);
  });
});

describe('HTTP timeouts and the connection cap', () => {
  it('has defaults, refuses a headers timeout longer than the request timeout', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      HTTP_HEADERS_TIMEOUT_MS: 10_000,
      HTTP_REQUEST_TIMEOUT_MS: 60_000,
      HTTP_KEEP_ALIVE_TIMEOUT_MS: 72_000,
    });
    expect(() => loadConfig({ HTTP_HEADERS_TIMEOUT_MS: '5000', HTTP_REQUEST_TIMEOUT_MS: '2000' })).toThrow(
      /HTTP_HEADERS_TIMEOUT_MS: must not exceed HTTP_REQUEST_TIMEOUT_MS/,
    );
    expect(() => loadConfig({ HTTP_REQUEST_TIMEOUT_MS: '0' })).toThrow(/HTTP_REQUEST_TIMEOUT_MS/);
  });

  it('caps connections per address unless told otherwise, and not behind a proxy by default', () => {
    expect(maxConnectionsPerIp(loadConfig({}))).toBe(DEFAULT_MAX_CONNECTIONS_PER_IP);
    expect(maxConnectionsPerIp(loadConfig({ TRUST_PROXY: '1' }))).toBe(0);
    expect(maxConnectionsPerIp(loadConfig({ TRUST_PROXY: '1', MAX_CONNECTIONS_PER_IP: '500' }))).toBe(500);
    expect(maxConnectionsPerIp(loadConfig({ MAX_CONNECTIONS_PER_IP: '0' }))).toBe(0);
    expect(() => loadConfig({ MAX_CONNECTIONS_PER_IP: '-1' })).toThrow(/MAX_CONNECTIONS_PER_IP/);
  });
});

describe('telephony settings', () => {
  it('has defaults: the simulated carrier on, RTP on 10000 to 20000, SIP bound to every IPv4 interface', () => {
    expect(loadConfig({})).toMatchObject({
      SIMULATED_CARRIER: 'on',
      RTP_PORT_MIN: 10_000,
      RTP_PORT_MAX: 20_000,
      SIP_BIND_ADDRESS: '0.0.0.0',
      SIP_PORT: 0,
    });
    expect(loadConfig({}).SIP_PUBLIC_ADDRESS).toBeUndefined();
  });

  it('parses what an operator sets', () => {
    const config = loadConfig({
      SIMULATED_CARRIER: 'off',
      RTP_PORT_MIN: '30000',
      RTP_PORT_MAX: '30001',
      SIP_BIND_ADDRESS: '::',
      SIP_PORT: '5060',
      SIP_PUBLIC_ADDRESS: 'sip.example.com',
    });
    expect(config).toMatchObject({
      SIP_PORT: 5060,
      SIMULATED_CARRIER: 'off',
      RTP_PORT_MIN: 30_000,
      RTP_PORT_MAX: 30_001,
      SIP_BIND_ADDRESS: '::',
      SIP_PUBLIC_ADDRESS: 'sip.example.com',
    });
    expect(loadConfig({ SIP_PUBLIC_ADDRESS: '203.0.113.7' }).SIP_PUBLIC_ADDRESS).toBe('203.0.113.7');
  });

  it('refuses bad values with messages that say what is wanted', () => {
    expect(() => loadConfig({ SIMULATED_CARRIER: 'false' })).toThrow(/SIMULATED_CARRIER: must be on or off/);
    for (const bad of ['80', '65536', '1e4', 'ten'])
      expect(() => loadConfig({ RTP_PORT_MIN: bad }), bad).toThrow(
        /RTP_PORT_MIN: must be a port number from 1024/,
      );
    for (const [min, max] of [
      ['20000', '20000'],
      ['20001', '20002'],
      ['20000', '19000'],
    ]) {
      expect(() => loadConfig({ RTP_PORT_MIN: min, RTP_PORT_MAX: max }), `${min}..${max}`).toThrow(
        /RTP_PORT_MAX: the range .* must hold an even RTP port and the RTCP port above it/,
      );
    }
    expect(loadConfig({ RTP_PORT_MIN: '20001', RTP_PORT_MAX: '20003' }).RTP_PORT_MIN).toBe(20001);
    expect(() => loadConfig({ SIP_BIND_ADDRESS: 'example.com' })).toThrow(
      /SIP_BIND_ADDRESS: must be an IP address/,
    );
    for (const bad of ['http://203.0.113.7', '203.0.113.7:5060', 'sip.example.com/x'])
      expect(() => loadConfig({ SIP_PUBLIC_ADDRESS: bad }), bad).toThrow(
        /SIP_PUBLIC_ADDRESS: must be an IP address or a DNS name/,
      );
  });
});
