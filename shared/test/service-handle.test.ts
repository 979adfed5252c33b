import { describe, expect, it } from 'vitest';
import {
  callRpc,
  createLogger,
  defineService,
  HEALTH,
  HEALTH_DATABASE_DEADLINE_MS,
  InProcessBus,
  type Sql,
  type Subscription,
  serveHealth,
} from '../src/index';

const log = createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'silent', name: 'service-handle-test' });
const ctx = { requestId: 'req-health' };

/** A postgres.js stand-in whose every query answers with `outcome`. */
function fakeSql(outcome: () => Promise<unknown>): Sql {
  return (() => outcome()) as unknown as Sql;
}

describe('serveHealth', () => {
  it('reports the database failing within about a second when it stalls', async () => {
    const bus = new InProcessBus({ requestTimeoutMs: 5_000, log });
    try {
      serveHealth({ bus, log, sql: fakeSql(() => new Promise(() => {})) }, 'call');
      const started = performance.now();
      const reply = await callRpc(bus, HEALTH.call, {}, ctx);
      const elapsed = performance.now() - started;
      expect(reply).toMatchObject({ service: 'call', status: 'degraded', checks: { database: 'failing' } });
      expect(elapsed).toBeGreaterThanOrEqual(HEALTH_DATABASE_DEADLINE_MS - 50);
      expect(elapsed).toBeLessThan(HEALTH_DATABASE_DEADLINE_MS + 1_000);
    } finally {
      await bus.close();
    }
  });

  it('reports ok when the database answers, failing at once when it refuses', async () => {
    const bus = new InProcessBus({ requestTimeoutMs: 5_000, log });
    try {
      serveHealth({ bus, log, sql: fakeSql(async () => [{ '?column?': 1 }]) }, 'agent');
      serveHealth({ bus, log, sql: fakeSql(() => Promise.reject(new Error('ECONNREFUSED'))) }, 'webhook');
      await expect(callRpc(bus, HEALTH.agent, {}, ctx)).resolves.toMatchObject({
        status: 'ok',
        checks: { database: 'ok' },
      });
      const started = performance.now();
      await expect(callRpc(bus, HEALTH.webhook, {}, ctx)).resolves.toMatchObject({
        status: 'degraded',
        checks: { database: 'failing' },
      });
      expect(performance.now() - started).toBeLessThan(500);
    } finally {
      await bus.close();
    }
  });
});

describe('defineService', () => {
  function recorder() {
    const calls: string[] = [];
    const subscription = (name: string): Subscription => ({
      unsubscribe: async () => void calls.push(`unsubscribe ${name}`),
    });
    const task = (name: string) => async () => {
      calls.push(`start ${name}`);
      return { stop: async () => void calls.push(`stop ${name}`) };
    };
    return { calls, subscription, task };
  }

  it('starts background work after its consumers registered, and stops it first, in reverse', async () => {
    const { calls, subscription, task } = recorder();
    let register!: (s: Subscription) => void;
    const pendingConsumer = new Promise<Subscription>((resolve) => {
      register = resolve;
    });
    const service = defineService({
      name: 'call',
      subscriptions: [subscription('health'), pendingConsumer],
      background: [task('relay'), task('timer')],
    });
    const started = service.start();
    await new Promise((r) => setTimeout(r, 20));
    expect(calls).toEqual([]);
    register(subscription('consumer'));
    await started;
    expect(calls).toEqual(['start relay', 'start timer']);

    await service.stopBackground();
    expect(calls.slice(2)).toEqual(['stop timer', 'stop relay']);
    await service.stop();
    expect(calls.slice(4).sort()).toEqual(['unsubscribe consumer', 'unsubscribe health']);
    // Idempotent: nothing runs twice.
    await service.stopBackground();
    await service.stop();
    expect(calls).toHaveLength(6);
  });

  it('stop() alone stops background work before subscriptions, even when stopping it fails', async () => {
    const { calls, subscription } = recorder();
    const service = defineService({
      name: 'webhook',
      subscriptions: [subscription('health')],
      background: [
        async () => ({
          stop: async () => {
            calls.push('stop relay');
            throw new Error('relay would not stop');
          },
        }),
      ],
    });
    await service.start();
    await expect(service.stop()).rejects.toThrow(/background work failed to stop/);
    expect(calls).toEqual(['stop relay', 'unsubscribe health']);
  });
});
