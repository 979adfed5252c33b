import { setTimeout as delay } from 'node:timers/promises';

/** Asks `query` every 50 ms until `done` holds for its answer; fails with `what` and the last answer. */
export async function pollUntil<T>(
  query: () => Promise<T>,
  done: (value: T) => boolean,
  what: string,
  timeoutMs = 90_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await query();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: ${JSON.stringify(value)}`);
    await delay(50);
  }
}
