import { checkWebhookUrl, type ValidationIssue, type WebhookConfigInput } from '@voice/shared';
import type { AgentRow } from '../db/agent-rows';

export type WebhookFields = Pick<AgentRow, 'webhook_url' | 'webhook_events' | 'webhook_secret'>;

/** A requested webhook change, checked (DNS included) before any row is locked. */
export type WebhookChange =
  | { kind: 'keep' }
  | { kind: 'remove' }
  | { kind: 'set'; url: string; events: WebhookFields['webhook_events']; secret: string | null | undefined }
  | { kind: 'invalid'; issues: ValidationIssue[] };

export const NO_WEBHOOK: WebhookFields = { webhook_url: null, webhook_events: null, webhook_secret: null };

const URL_LOC = ['body', 'webhook_config', 'url'];

/**
 * The URL must not name or resolve to a private address unless the operator allows it. Resolving
 * can take seconds, so this runs outside any transaction. The normalised URL, or the 422 issue.
 */
export async function checkUrl(
  url: string,
  allowPrivate: boolean,
): Promise<{ ok: true; url: string } | { ok: false; issue: ValidationIssue }> {
  const verdict = await checkWebhookUrl(url, { allowPrivate });
  if (verdict.ok) return { ok: true, url: verdict.url };
  return { ok: false, issue: { loc: URL_LOC, msg: verdict.reason, type: 'url_not_allowed' } };
}

/** Checks what a request asks of the webhook (see checkUrl), before any row is locked. */
export async function checkWebhookChange(
  requested: WebhookConfigInput | null | undefined,
  allowPrivate: boolean,
): Promise<WebhookChange> {
  if (requested === undefined) return { kind: 'keep' };
  if (requested === null) return { kind: 'remove' };
  const checked = await checkUrl(requested.url, allowPrivate);
  if (!checked.ok) return { kind: 'invalid', issues: [checked.issue] };
  return { kind: 'set', url: checked.url, events: [...new Set(requested.events)], secret: requested.secret };
}

/**
 * The stored fields after a change. An omitted secret keeps the current one (it cannot be read
 * back to resend); `secret: null` removes it.
 */
export function applyWebhookChange(
  change: Exclude<WebhookChange, { kind: 'invalid' }>,
  current: WebhookFields,
): WebhookFields {
  switch (change.kind) {
    case 'keep':
      return current;
    case 'remove':
      return NO_WEBHOOK;
    case 'set':
      return {
        webhook_url: change.url,
        webhook_events: change.events,
        webhook_secret: change.secret === undefined ? current.webhook_secret : change.secret,
      };
  }
}
