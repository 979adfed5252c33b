import { AGENT, CHECK_SETTINGS_MAX, type CheckAgentSettingsRequest } from '@voice/shared';
import type { MoreIssuesContext } from '../http/rpc-route';

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A string the check can take; anything else is the schema's to report. */
function loose(value: unknown, max = CHECK_SETTINGS_MAX): string | undefined {
  return typeof value === 'string' && value.length <= max ? value : undefined;
}

/** What the agent service checks beyond the schema, read from a body of any shape. */
function settingsRequest(
  rawBody: unknown,
  mode: CheckAgentSettingsRequest['mode'],
): CheckAgentSettingsRequest {
  const body = isRecord(rawBody) ? rawBody : {};
  const request: CheckAgentSettingsRequest = { mode };
  for (const field of ['agent_type', 'language', 'voice', 'ai_model'] as const) {
    const value = loose(body[field]);
    if (value !== undefined) request[field] = value;
  }
  const url = isRecord(body.webhook_config) ? loose(body.webhook_config.url, 2048) : undefined;
  if (url !== undefined) request.webhook_url = url;
  return request;
}

/** An agent body's catalogue and webhook address problems, next to the schema's, in the same 422. */
export const checkSettings =
  (mode: CheckAgentSettingsRequest['mode']) =>
  (rawBody: unknown, { client, context }: MoreIssuesContext) =>
    client.call(AGENT.checkSettings, settingsRequest(rawBody, mode), context);
