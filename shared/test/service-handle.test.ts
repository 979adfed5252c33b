import { describe, expect, it } from 'vitest';
import { defineService, type Subscription } from '../src/index';

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
