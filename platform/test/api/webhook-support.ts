import type { Call, PageOf, WebhookDelivery } from '@voice/shared';
import type { InfraMode } from '@voice/shared/testing';
import { afterAll, beforeAll, expect } from 'vitest';
import { createAccount, type TestAccount } from '../support/accounts';
import { placeCallAndWait } from '../support/calls';
import { startTestPlatform, type TestPlatform } from '../support/harness';
import { api, type Envelope } from '../support/http';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

/** Helpers of the webhook delivery-log tests: agents with a webhook, and the log as a customer polls it. */

/** Polls `probe` until it answers something other than undefined; fails after `timeoutMs`. */
export async function until<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A support agent named Logged, with `webhookConfig` when given. */
export async function agentWith(url: string, key: string, webhookConfig?: unknown): Promise<string> {
  const res = await api<Envelope<{ id: string }>>(url, 'POST', '/v1/agents', {
    key,
    body: {
      name: 'Logged',
      agent_type: 'support',
      start_flow: 'Hello, this is Logged from Acme.',
      end_flow: 'Thanks for your time, goodbye!',
      ...(webhookConfig === undefined ? {} : { webhook_config: webhookConfig }),
    },
  });
  expect(res.status, res.text).toBe(201);
  return res.body.data.id;
}

export async function listDeliveries(
  url: string,
  key: string,
  agentId: string,
  query = '',
): Promise<PageOf<WebhookDelivery>> {
  const res = await api<Envelope<PageOf<WebhookDelivery>>>(
    url,
    'GET',
    `/v1/agents/${agentId}/webhook-deliveries${query}`,
    { key },
  );
  expect(res.status, res.text).toBe(200);
  return res.body.data;
}

/** The agent's log once it holds `count` deliveries, every one final (newest first). */
export async function settledDeliveries(
  url: string,
  key: string,
  agentId: string,
  count: number,
): Promise<WebhookDelivery[]> {
  let seen: string[] = [];
  try {
    return await until(
      `${count} final deliveries`,
      async () => {
        const { items } = await listDeliveries(url, key, agentId, '?page_size=100');
        seen = items.map((d) => d.status);
        const final = items.every((d) => d.status === 'succeeded' || d.status === 'failed');
        return items.length === count && final ? items : undefined;
      },
      60_000,
    );
  } catch (error) {
    throw new Error(`log not settled: ${JSON.stringify(seen)}`, { cause: error });
  }
}

/** The caller number of the delivery-log suites' calls. */
export const FROM = '+14155550100';

/** What a delivery-log suite runs against, ready once its beforeAll ran. */
export interface WebhookLogSuite {
  readonly t: TestPlatform;
  /** The account the tests act as, and another one that must not see its deliveries. */
  readonly acme: TestAccount;
  readonly other: TestAccount;
  readonly receiver: WebhookReceiver;
  deliveriesPath(agentId: string): string;
  /** A new agent of `key`'s account (acme by default) with `webhookConfig`; its id. */
  agentWith(webhookConfig: unknown, key?: string): Promise<string>;
  /** An acme call with the agent, once it ended (and its CALL_ENDED was sent). */
  placeAndFinish(agentId: string): Promise<Call>;
  /** Polls the log (the API a customer would poll) until every delivery of the agent is final. */
  settledLog(agentId: string, count: number): Promise<WebhookDelivery[]>;
}

/**
 * Registers the beforeAll/afterAll of a delivery-log suite: a webhook receiver, a platform with
 * fast simulated calls and retries `retryBaseMs` apart, and two accounts.
 */
export function webhookLogSuite(
  mode: InfraMode,
  options: { retryBaseMs: number; captureLogs?: boolean },
): WebhookLogSuite {
  // Filled in as each part starts, so afterAll stops what did start even when a later part failed.
  const parts: { t?: TestPlatform; acme?: TestAccount; other?: TestAccount; receiver?: WebhookReceiver } = {};
  const ready = () => {
    const { t, acme, other, receiver } = parts;
    if (!t || !acme || !other || !receiver)
      throw new Error('the suite has not started (use it inside tests)');
    return { t, acme, other, receiver };
  };
  beforeAll(async () => {
    parts.receiver = await startWebhookReceiver();
    const t = await startTestPlatform(mode, {
      captureLogs: options.captureLogs ?? false,
      config: { SIM_TIME_SCALE: 0.002, WEBHOOK_RETRY_BASE_MS: options.retryBaseMs },
    });
    parts.t = t;
    [parts.acme, parts.other] = await Promise.all([
      createAccount(t, { name: 'Acme' }),
      createAccount(t, { name: 'Other' }),
    ]);
  });
  afterAll(async () => {
    await parts.t?.stop();
    await parts.receiver?.close();
  });
  return {
    get t() {
      return ready().t;
    },
    get acme() {
      return ready().acme;
    },
    get other() {
      return ready().other;
    },
    get receiver() {
      return ready().receiver;
    },
    deliveriesPath: (agentId) => `/v1/agents/${agentId}/webhook-deliveries`,
    agentWith: (webhookConfig, key = ready().acme.key) => agentWith(ready().t.url, key, webhookConfig),
    placeAndFinish: (agentId) =>
      placeCallAndWait(ready().t.url, ready().acme.key, {
        agent_id: agentId,
        source_number: FROM,
        phone_number: '+14155550123',
      }),
    settledLog: (agentId, count) => settledDeliveries(ready().t.url, ready().acme.key, agentId, count),
  };
}
