import { REQUEST_EXAMPLES } from '@voice/shared';
import { infraModes } from '@voice/shared/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createAccount, type TestAccount } from '../support/accounts';
import { startTestPlatform, type TestPlatform } from '../support/harness';
import { api, type Envelope } from '../support/http';
import { RawConnection } from '../support/raw-socket';

// Three slots for an account writing alone, two each while another account writes too.
const SLOTS = 3;
const SHARED = 2;
const AGENT_BODY = JSON.stringify(REQUEST_EXAMPLES.createAgent);

describe.each(infraModes())('writes per account in flight (%s)', (mode) => {
  let t: TestPlatform;
  let a: TestAccount;
  let b: TestAccount;
  const open: RawConnection[] = [];

  beforeAll(async () => {
    t = await startTestPlatform(mode, {
      config: { ACCOUNT_WRITES_IN_FLIGHT: SLOTS, ACCOUNT_WRITES_SHARED: SHARED },
    });
    a = await createAccount(t, { name: 'Bursting' });
    b = await createAccount(t, { name: 'Steady' });
  });
  afterAll(async () => {
    for (const connection of open) connection.destroy();
    await t?.stop();
  });

  async function gauge(name: string): Promise<number> {
    const text = await (await fetch(`${t.url}/metrics`)).text();
    const line = text.split('\n').find((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `));
    return Number(line?.split(' ').at(-1));
  }

  /** A POST /v1/agents of `account` whose body stops half way: it holds its slot until finished. */
  async function heldWrite(account: TestAccount): Promise<{ connection: RawConnection; finish: () => void }> {
    const connection = await RawConnection.open(t.url);
    open.push(connection);
    const half = Math.floor(AGENT_BODY.length / 2);
    connection.write(
      `POST /v1/agents HTTP/1.1\r\nHost: ${new URL(t.url).host}\r\nAuthorization: Bearer ${account.key}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(AGENT_BODY)}\r\n\r\n` +
        AGENT_BODY.slice(0, half),
    );
    return { connection, finish: () => connection.write(AGENT_BODY.slice(half)) };
  }

  /** Waits until the gateway has `n` REST writes in hand, over all accounts. */
  async function inFlight(n: number): Promise<void> {
    await vi.waitFor(async () => expect(await gauge('gateway_account_writes_in_flight')).toBe(n), {
      timeout: 15_000,
      interval: 20,
    });
  }

  async function waitingWrites(n: number): Promise<void> {
    await vi.waitFor(async () => expect(await gauge('gateway_account_writes_waiting')).toBe(n), {
      timeout: 15_000,
      interval: 20,
    });
  }

  async function agentCount(account: TestAccount): Promise<number> {
    const res = await api<Envelope<{ total: number }>>(t.url, 'GET', '/v1/agents', { key: account.key });
    expect(res.status).toBe(200);
    return res.body.data.total;
  }

  it('holds an account\u2019s writes past its slots, unread, while another account\u2019s go through', async () => {
    const held = [await heldWrite(a), await heldWrite(a), await heldWrite(a)] as const;
    await inFlight(SLOTS);

    let fourthDone = false;
    const fourth = api<Envelope<{ id: string }>>(t.url, 'POST', '/v1/agents', {
      key: a.key,
      body: REQUEST_EXAMPLES.createAgent,
    }).finally(() => {
      fourthDone = true;
    });
    await waitingWrites(1);

    // The other account is not behind A's writes, and A's reads are not held either. B's held
    // write keeps the two accounts sharing the gateway, whatever the time the steps take.
    const steadyHeld = await heldWrite(b);
    const steady = await api(t.url, 'POST', '/v1/agents', { key: b.key, body: REQUEST_EXAMPLES.createAgent });
    expect(steady.status).toBe(201);
    expect(await agentCount(a)).toBe(0);
    expect(fourthDone).toBe(false);

    // While B writes, A has its shared slots: a freed slot of its three is not refilled...
    held[0].finish();
    expect((await held[0].connection.answer(15_000)).status).toBe(201);
    await inFlight(SHARED + 1);
    await waitingWrites(1);
    expect(fourthDone).toBe(false);
    steadyHeld.finish();
    expect((await steadyHeld.connection.answer(15_000)).status).toBe(201);

    // ...and once A is under them, the waiting one goes in.
    held[1].finish();
    expect((await held[1].connection.answer(15_000)).status).toBe(201);
    expect((await fourth).status).toBe(201);
    held[2].finish();
    expect((await held[2].connection.answer(15_000)).status).toBe(201);
    expect(await agentCount(a)).toBe(4);
    await inFlight(0);
  });

  it('frees the slot of a client that went away, and drops a waiting write whose client left', async () => {
    const before = await agentCount(a);
    // B's write in hand: A has its shared slots throughout, whatever the time the steps take.
    const other = await heldWrite(b);
    const first = await heldWrite(a);
    const second = await heldWrite(a);
    await inFlight(SHARED + 1);
    const waiting = await heldWrite(a);
    waiting.finish();
    await waitingWrites(1);
    waiting.connection.destroy();
    await waitingWrites(0);
    first.connection.destroy();
    second.connection.destroy();
    other.connection.destroy();
    await inFlight(0);
    // Nothing of the three was done, and the account writes again at once.
    const after = await api(t.url, 'POST', '/v1/agents', { key: a.key, body: REQUEST_EXAMPLES.createAgent });
    expect(after.status).toBe(201);
    expect(await agentCount(a)).toBe(before + 1);
  });
});
