import { checkWebhookUrl, type ValidationIssue, type WebhookConfigInput } from '@voice/shared';
import type { AgentRow } from '../db/agent-rows';

export type WebhookFields = Pick<AgentRow, 'webhook_url' | 'webhook_events' | 'webhook_secret'>;
export type WebhookResult = { ok: true; fields: WebhookFields } | { ok: false; issues: ValidationIssue[] };

const NONE: WebhookFields = { webhook_url: null, webhook_events: null, webhook_secret: null };

/**
 * The stored webhook settings a request asks for. `null` removes the webhook; an omitted secret
 * keeps the current one (it cannot be read back to resend), `secret: null` removes it. The URL
 * must not name or resolve to a private address unless the operator allows it.
 */
export async function resolveWebhook(
  requested: WebhookConfigInput | null | undefined,
  current: WebhookFields,
  allowPrivate: boolean,
): Promise<WebhookResult> {
  if (requested === undefined) return { ok: true, fields: current };
  if (requested === null) return { ok: true, fields: NONE };
  const verdict = await checkWebhookUrl(requested.url, { allowPrivate });
  if (!verdict.ok) {
    return {
      ok: false,
      issues: [{ loc: ['body', 'webhook_config', 'url'], msg: verdict.reason, type: 'url_not_allowed' }],
    };
  }
  const secret = requested.secret === undefined ? current.webhook_secret : requested.secret;
  return {
    ok: true,
    fields: {
      webhook_url: verdict.url,
      webhook_events: [...new Set(requested.events)],
      webhook_secret: secret,
    },
  };
}
