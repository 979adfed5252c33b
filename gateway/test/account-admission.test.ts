import { describe, expect, it } from 'vitest';
import { AccountAdmission } from '../src/http/account-admission';

/** Whether a promise has settled, after the microtasks already queued ran. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => {
    done = true;
  });
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

describe('AccountAdmission', () => {
  it('admits an account\u2019s writes up to its slots, then in arrival order as slots free', async () => {
    const admission = new AccountAdmission(2);
    const first = admission.enter('a');
    const second = admission.enter('a');
    const third = admission.enter('a');
    const fourth = admission.enter('a');
    expect(await first.admitted).toBe(true);
    expect(await second.admitted).toBe(true);
    expect(await settled(third.admitted)).toBe(false);
    expect(admission.totals()).toEqual({ active: 2, waiting: 2 });
    admission.leave('a');
    expect(await third.admitted).toBe(true);
    expect(await settled(fourth.admitted)).toBe(false);
    admission.leave('a');
    expect(await fourth.admitted).toBe(true);
    admission.leave('a');
    admission.leave('a');
    expect(admission.totals()).toEqual({ active: 0, waiting: 0 });
  });

  it('never holds one account\u2019s write behind another account\u2019s', async () => {
    const admission = new AccountAdmission(1);
    expect(await admission.enter('a').admitted).toBe(true);
    const waiting = admission.enter('a');
    expect(await admission.enter('b').admitted).toBe(true);
    expect(await settled(waiting.admitted)).toBe(false);
    expect(admission.totals()).toEqual({ active: 2, waiting: 1 });
  });

  it('drops a write whose client left while it waited, and passes its turn on', async () => {
    const admission = new AccountAdmission(1);
    expect(await admission.enter('a').admitted).toBe(true);
    const left = admission.enter('a');
    const next = admission.enter('a');
    left.cancel();
    expect(await left.admitted).toBe(false);
    expect(admission.totals()).toEqual({ active: 1, waiting: 1 });
    admission.leave('a');
    expect(await next.admitted).toBe(true);
    left.cancel(); // after the fact: nothing changes
    expect(admission.totals()).toEqual({ active: 1, waiting: 0 });
  });

  it('with 0 slots admits everything at once', async () => {
    const admission = new AccountAdmission(0);
    const tickets = Array.from({ length: 100 }, () => admission.enter('a'));
    expect(await Promise.all(tickets.map((t) => t.admitted))).toEqual(Array(100).fill(true));
  });
});
