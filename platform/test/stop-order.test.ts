import { rm } from 'node:fs/promises';
import { createTestDatabase, type TestDatabase } from '@voice/shared/testing';
import postgres from 'postgres';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startTestPlatform, type TestPlatform } from './support/harness';

/**
 * A closed pool's connections leave pg_stat_activity once their backends exit, a moment after the
 * client hung up (longer on a loaded machine). A pool left open never does.
 */
const CONNECTIONS_GONE = { timeout: 30_000, interval: 50 };

/** Connections the platform's pools still hold on `database`. */
async function platformConnections(url: string, database: string): Promise<number> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const [row] = await sql<{ count: number }[]>`
      select count(*)::int as count from pg_stat_activity
       where datname = ${database} and application_name like 'voice-%'`;
    return row!.count;
  } finally {
    await sql.end();
  }
}

/** Replaces `object[key]` (a method) with a wrapper that records the call first. */
function spy<T extends object>(
  object: T,
  key: keyof T & string,
  label: string,
  calls: string[],
  fail?: Error,
) {
  const original = (object[key] as () => Promise<void>).bind(object);
  Object.assign(object, {
    [key]: async () => {
      calls.push(label);
      if (fail) {
        await original();
        throw fail;
      }
      return original();
    },
  });
}

describe('platform stop', () => {
  let database: TestDatabase | undefined;
  let t: TestPlatform | undefined;
  afterEach(async () => {
    await t?.platform.stop().catch(() => {});
    if (t) await rm(t.config.DATA_DIR, { recursive: true, force: true });
    await database?.drop();
    t = undefined;
    database = undefined;
  });

  async function start(): Promise<TestPlatform> {
    database = await createTestDatabase('embedded');
    t = await startTestPlatform('embedded', { databaseUrl: database.url });
    return t;
  }

  it('stops in the reverse order of start: gateway, background work, subscriptions, bus, pools', async () => {
    const { platform } = await start();
    const calls: string[] = [];
    spy(platform.gateway!.app, 'close', 'gateway', calls);
    for (const [name, service] of platform.services) {
      spy(service, 'stopBackground', `background:${name}`, calls);
      spy(service, 'stop', `subscriptions:${name}`, calls);
    }
    spy(platform.infrastructure.bus, 'close', 'bus', calls);
    await platform.stop();
    const phase = (label: string) => label.split(':')[0];
    const services = platform.services.size;
    expect(services).toBe(5);
    expect(calls.map(phase)).toEqual([
      'gateway',
      ...Array(services).fill('background'),
      ...Array(services).fill('subscriptions'),
      'bus',
    ]);
    await vi.waitFor(
      async () => expect(await platformConnections(database!.url, database!.name)).toBe(0),
      CONNECTIONS_GONE,
    );
  });

  it('runs every stage even when some fail, then throws them together', async () => {
    const { platform } = await start();
    const calls: string[] = [];
    spy(platform.services.get('call')!, 'stopBackground', 'background:call', calls, new Error('relay stuck'));
    spy(platform.infrastructure.bus, 'close', 'bus', calls, new Error('bus broke'));
    const error = await platform.stop().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AggregateError);
    expect((error as Error).message).toMatch(/stop background work/);
    expect((error as Error).message).toMatch(/close the bus/);
    expect(calls).toEqual(['background:call', 'bus']);
    // The pools were closed after the bus failed to close.
    await vi.waitFor(
      async () => expect(await platformConnections(database!.url, database!.name)).toBe(0),
      CONNECTIONS_GONE,
    );
    // The gateway stopped too.
    await expect(fetch(`${t!.url}/v1/health`)).rejects.toThrow();
    // stop() is idempotent: the same outcome again, nothing run twice.
    await expect(platform.stop()).rejects.toBe(error);
    expect(calls).toEqual(['background:call', 'bus']);
  });
});
