import type { Call } from '@voice/shared';
import { infraModes } from '@voice/shared/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, type TestAccount } from '../support/accounts';
import { startTestPlatform, type TestPlatform } from '../support/harness';
import { api, type Envelope, type ErrorEnvelope } from '../support/http';

const FROM = '+14155550100';
const FINAL = ['completed', 'no_answer', 'failed', 'voicemail', 'busy'];

async function createAgent(t: TestPlatform, account: TestAccount, name: string): Promise<string> {
  const res = await api<Envelope<{ id: string }>>(t.url, 'POST', '/v1/agents', {
    key: account.key,
    body: { name, agent_type: 'sales', start_flow: 'Hello there.', end_flow: 'Goodbye.' },
  });
  expect(res.status, res.text).toBe(201);
  return res.body.data.id;
}

async function waitForFinal(t: TestPlatform, key: string, id: string, timeoutMs = 60_000): Promise<Call> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await api<Envelope<Call>>(t.url, 'GET', `/v1/calls/${id}`, { key });
    expect(res.status).toBe(200);
    if (FINAL.includes(res.body.data.status)) return res.body.data;
    if (Date.now() > deadline) throw new Error(`call ${id} still ${res.body.data.status}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe.each(infraModes())('placing calls (%s)', (mode) => {
  describe('the agent a call is placed with', () => {
    let t: TestPlatform;
    let acme: TestAccount;
    beforeAll(async () => {
      t = await startTestPlatform(mode, { config: { SIM_TIME_SCALE: 0.001 } });
      acme = await createAccount(t, { name: 'Acme', plan: 'enterprise', rateLimitPerMinute: 100_000 });
    });
    afterAll(async () => t?.stop());

    const place = (agentId: string) =>
      api<Envelope<Call> & ErrorEnvelope>(t.url, 'POST', '/v1/call', {
        key: acme.key,
        body: { agent_id: agentId, source_number: FROM, phone_number: '+14155550123' },
      });

    it('is the agent as it is when the call is placed, right after every change', async () => {
      const agentId = await createAgent(t, acme, 'Riley 0');
      let previousHash: string | null = null;
      for (let i = 1; i <= 5; i++) {
        const before = await place(agentId);
        expect(before.status).toBe(201);
        expect(before.body.data.agent.name).toBe(`Riley ${i - 1}`);
        const patched = await api(t.url, 'PATCH', `/v1/agents/${agentId}`, {
          key: acme.key,
          body: { name: `Riley ${i}`, prompt: `You are Riley, version ${i}. Be brief and friendly.` },
        });
        expect(patched.status, patched.text).toBe(200);
        const after = await place(agentId);
        expect(after.status).toBe(201);
        expect(after.body.data.agent.name).toBe(`Riley ${i}`);
        const ended = await waitForFinal(t, acme.key, after.body.data.id);
        expect(ended.prompt_hash).not.toBe(previousHash);
        previousHash = ended.prompt_hash;
      }
    });

    it('is not found once the agent was deleted, though calls were just placed with it', async () => {
      const agentId = await createAgent(t, acme, 'Short-lived');
      for (let i = 0; i < 3; i++) expect((await place(agentId)).status).toBe(201);
      const deleted = await api(t.url, 'DELETE', `/v1/agents/${agentId}`, { key: acme.key });
      expect(deleted.status, deleted.text).toBe(204);
      const refused = await place(agentId);
      expect(refused.status).toBe(404);
      expect(refused.body.success).toBe(false);
    });

    it('of another account is not found, even while this account places calls with it', async () => {
      const agentId = await createAgent(t, acme, 'Mine');
      expect((await place(agentId)).status).toBe(201);
      const other = await createAccount(t, { name: 'Other' });
      const res = await api<ErrorEnvelope>(t.url, 'POST', '/v1/call', {
        key: other.key,
        body: { agent_id: agentId, source_number: FROM, phone_number: '+14155550123' },
      });
      expect(res.status).toBe(404);
    });
  });

  describe('the dial queue (CALL_DIALS_PER_SECOND)', () => {
    const PER_SECOND = 4;
    // The last call waits (CALLS - PER_SECOND) / PER_SECOND = 8 s for its turn: well past the
    // reaper's grace below, so a queued call counted as stuck would be failed.
    const CALLS = 36;
    let t: TestPlatform;
    let acme: TestAccount;
    beforeAll(async () => {
      t = await startTestPlatform(mode, {
        // Calls last milliseconds, the keeper runs every 2/3 s, and the reaper's grace and the
        // lease are far shorter than the queue's wait: a call waiting for its turn must not count
        // as stuck, and its lease must be renewed while it waits. The grace is still what a dialed
        // call may take on a loaded machine (its 60 simulated ms became over 2 s there).
        config: {
          SIM_TIME_SCALE: 0.0001,
          CALL_DIALS_PER_SECOND: PER_SECOND,
          CALL_STUCK_GRACE_MS: 5_000,
          CALL_LEASE_SECONDS: 2,
        },
      });
      acme = await createAccount(t, { name: 'Acme', plan: 'enterprise', rateLimitPerMinute: 100_000 });
    });
    afterAll(async () => t?.stop());

    it('accepts a burst at once and dials it at the trunk’s rate; every call ends as its number says', async () => {
      const agentId = await createAgent(t, acme, 'Burst');
      const started = Date.now();
      const placed = await Promise.all(
        Array.from({ length: CALLS }, (_, i) =>
          api<Envelope<Call>>(t.url, 'POST', '/v1/call', {
            key: acme.key,
            body: {
              agent_id: agentId,
              source_number: FROM,
              // Every fourth call goes to voicemail, the rest complete.
              phone_number: i % 4 === 3 ? '+14155550003' : `+1415555${String(1000 + i).padStart(4, '0')}`,
            },
          }),
        ),
      );
      for (const res of placed) {
        expect(res.status, res.text).toBe(201);
        expect(res.body.data.status).toBe('initializing');
      }
      const ended = await Promise.all(placed.map((res) => waitForFinal(t, acme.key, res.body.data.id)));
      const elapsedMs = Date.now() - started;
      // The first PER_SECOND go at once, the rest at PER_SECOND a second.
      expect(elapsedMs).toBeGreaterThanOrEqual(((CALLS - PER_SECOND) / PER_SECOND) * 1000 - 250);
      ended.forEach((call, i) => {
        expect(call.status, `call ${i}: ${call.call_end_reason}`).toBe(
          i % 4 === 3 ? 'voicemail' : 'completed',
        );
        expect(call.call_end_reason).not.toBe('timeout');
      });
    });
  });
});
