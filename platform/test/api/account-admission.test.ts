import { REQUEST_EXAMPLES } from '@voice/shared';
import { infraModes } from '@voice/shared/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createAccount, type TestAccount } from '../support/accounts';
import { startTestPlatform, type TestPlatform } from '../support/harness';
import { api, type Envelope } from '../support/http';
import { RawConnection } from '../support/raw-socket';

const SLOTS = 2;
const AGENT_BODY = JSON.stringify(REQUEST_EXAMPLES.createAgent);

describe.each(infraModes())('writes per account in flight (%s)', (mode) => {
  let t: TestPlatform;
  let a: TestAccount;
  let b: TestAccount;
  const open: RawConnection[] = [];

  beforeAll(async () => {
    t = await startTestPlatform(mode, { config: { ACCOUNT_WRITES_IN_FLIGHT: SLOTS } });
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

  async function agentCount(account: TestAccount): Promise<number> {
    const res = await api<Envelope<{ total: number }>>(t.url, 'GET', '/v1/agents', { key: account.key });
    expect(res.status).toBe(200);
    return res.body.data.total;
  }

  it('holds an account\u2019s writes past its slots, unread, while another account\u2019s go through', async () => {
    const first = await heldWrite(a);
    const second = await heldWrite(a);
    await vi.waitFor(async () => expect(await gauge('gateway_account_writes_in_flight')).toBe(SLOTS), {
      timeout: 15_000,
      interval: 20,
    });

    let thirdDone = false;
    const third = api<Envelope<{ id: string }>>(t.url, 'POST', '/v1/agents', {
      key: a.key,
      body: REQUEST_EXAMPLES.createAgent,
    }).finally(() => {
      thirdDone = true;
    });
    await vi.waitFor(async () => expect(await gauge('gateway_account_writes_waiting')).toBe(1), {
      timeout: 15_000,
      interval: 20,
    });

    // The other account is not behind A's writes, and A's reads are not held either.
    const steady = await api(t.url, 'POST', '/v1/agents', { key: b.key, body: REQUEST_EXAMPLES.createAgent });
    expect(steady.status).toBe(201);
    expect(await agentCount(a)).toBe(0);
    expect(thirdDone).toBe(false);

    // A slot frees when a held write ends: the waiting one goes in.
    first.finish();
    expect((await first.connection.answer(15_000)).status).toBe(201);
    expect((await third).status).toBe(201);
    second.finish();
    expect((await second.connection.answer(15_000)).status).toBe(201);
    expect(await agentCount(a)).toBe(3);
    await vi.waitFor(async () => expect(await gauge('gateway_account_writes_in_flight')).toBe(0), {
      timeout: 15_000,
      interval: 20,
    });
  });

  it('frees the slot of a client that went away, and drops a waiting write whose client left', async () => {
    const before = await agentCount(a);
    const first = await heldWrite(a);
    const second = await heldWrite(a);
    await vi.waitFor(async () => expect(await gauge('gateway_account_writes_in_flight')).toBe(SLOTS), {
      timeout: 15_000,
      interval: 20,
    });
    const waiting = await heldWrite(a);
    waiting.finish();
    await vi.waitFor(async () => expect(await gauge('gateway_account_writes_waiting')).toBe(1), {
      timeout: 15_000,
      interval: 20,
    });
    waiting.connection.destroy();
    await vi.waitFor(async () => expect(await gauge('gateway_account_writes_waiting')).toBe(0), {
      timeout: 15_000,
      interval: 20,
    });
    first.connection.destroy();
    second.connection.destroy();
    await vi.waitFor(async () => expect(await gauge('gateway_account_writes_in_flight')).toBe(0), {
      timeout: 15_000,
      interval: 20,
    });
    // Nothing of the three was done, and the account writes again at once.
    const after = await api(t.url, 'POST', '/v1/agents', { key: a.key, body: REQUEST_EXAMPLES.createAgent });
    expect(after.status).toBe(201);
    expect(await agentCount(a)).toBe(before + 1);
  });
});
