import { describe, expect, it } from 'vitest';
import { AccountAdmission, SHARING_WINDOW_MS } from '../src/http/account-admission';

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
    const admission = new AccountAdmission({ perAccount: 2, shared: 2 });
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
    const admission = new AccountAdmission({ perAccount: 1, shared: 1 });
    expect(await admission.enter('a').admitted).toBe(true);
    const waiting = admission.enter('a');
    expect(await admission.enter('b').admitted).toBe(true);
    expect(await settled(waiting.admitted)).toBe(false);
    expect(admission.totals()).toEqual({ active: 2, waiting: 1 });
  });

  it('drops a write whose client left while it waited, and passes its turn on', async () => {
    const admission = new AccountAdmission({ perAccount: 1, shared: 1 });
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
    const admission = new AccountAdmission({ perAccount: 0, shared: 1 });
    const tickets = Array.from({ length: 100 }, () => admission.enter('a'));
    expect(await Promise.all(tickets.map((t) => t.admitted))).toEqual(Array(100).fill(true));
  });

  it('holds each account to its shared slots while another account writes, and gives the rest back after', async () => {
    let now = 0;
    const admission = new AccountAdmission({ perAccount: 4, shared: 2 }, () => now);
    const enterA = () => admission.enter('a');
    const alone = [enterA(), enterA(), enterA(), enterA(), enterA(), enterA()] as const;
    expect(await Promise.all(alone.slice(0, 4).map((t) => t.admitted))).toEqual([true, true, true, true]);
    expect(await settled(alone[4].admitted)).toBe(false);

    // b writes: a's in-flight writes drain to 2 before the next of a's is let in.
    now += 10;
    expect(await admission.enter('b').admitted).toBe(true);
    admission.leave('a');
    admission.leave('a');
    expect(await settled(alone[4].admitted)).toBe(false);
    expect(admission.totals()).toEqual({ active: 3, waiting: 2 });
    admission.leave('a');
    expect(await alone[4].admitted).toBe(true);
    expect(await settled(alone[5].admitted)).toBe(false);

    // b is done and quiet past the window: a has its four slots again at its next turn.
    admission.leave('b');
    now += SHARING_WINDOW_MS + 1;
    const later = [enterA(), enterA()] as const;
    expect(await alone[5].admitted).toBe(true);
    expect(await later[0].admitted).toBe(true);
    expect(await settled(later[1].admitted)).toBe(false);
    expect(admission.totals()).toEqual({ active: 4, waiting: 1 });
  });

  it('counts another account’s write still in hand as sharing, however long ago it began', async () => {
    let now = 0;
    const admission = new AccountAdmission({ perAccount: 3, shared: 1 }, () => now);
    expect(await admission.enter('b').admitted).toBe(true);
    now += SHARING_WINDOW_MS * 10;
    expect(await admission.enter('a').admitted).toBe(true);
    const held = admission.enter('a');
    expect(await settled(held.admitted)).toBe(false);
    admission.leave('b');
    admission.leave('a');
    expect(await held.admitted).toBe(true);
  });
});
