import type { PageOf, WebhookDelivery } from '@voice/shared';
import { expect } from 'vitest';
import { api, type Envelope } from '../support/http';

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
