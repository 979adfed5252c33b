import type { WebhookEventKind } from '@voice/shared';
import type { AgentsApp } from './agents';

export interface WebhookTarget {
  url: string;
  events: WebhookEventKind[];
  secret: string | null;
}

/** Where the webhook service sends this agent's events, secret included; null when it has no webhook. */
export async function webhookTarget(
  agents: AgentsApp,
  accountId: string,
  agentId: string,
): Promise<WebhookTarget | null> {
  const row = await agents.require(agents.sql, accountId, agentId);
  if (!row.webhook_url || !row.webhook_events) return null;
  return { url: row.webhook_url, events: row.webhook_events, secret: row.webhook_secret };
}
