import type { Call, CallEndedData } from '@voice/shared/contracts';
import { signRecordingUrl } from '@voice/shared/recordings';

export interface PayloadLinks {
  /** Public base URL of the gateway that serves recording links. */
  baseUrl: string;
  /** The operator's recording-link secret. */
  recordingSecret: string;
  now?: number;
}

/**
 * The documented CALL_ENDED body (the CallEndedPayload contract, which the OpenAPI document's
 * `webhooks` section shows), built from the final call record, with `telephony` (how the call
 * was carried) and `opted_out` beside the spec's fields. Every field has its spec type for every outcome:
 * sentiment is one of the three values, recording_url a string (`""` without audio).
 */
export function callEndedPayload(call: Call, links: PayloadLinks) {
  const now = links.now ?? Date.now();
  const metadata: Record<string, unknown> = { ...(call.metadata ?? {}) };
  if (call.campaign_id) metadata.campaign_id = call.campaign_id;
  return {
    event: 'CALL_ENDED' as const,
    timestamp: new Date(now).toISOString(),
    data: {
      session_id: call.session_id,
      phone_number: call.phone_number,
      direction: call.direction,
      status: call.status,
      duration_seconds: call.duration_seconds,
      duration_minutes: call.duration_minutes,
      started_at: call.started_at,
      ended_at: call.ended_at,
      agent_id: call.agent_id,
      agent_type: call.agent_type,
      sentiment: call.sentiment,
      call_summary: call.call_summary,
      call_end_reason: call.call_end_reason,
      ended_by: call.ended_by,
      details_collection: call.details_collection,
      transcript: call.transcript,
      // Like the call record the gateway serves: a link only when there is a recording.
      recording_url:
        call.duration_seconds > 0
          ? signRecordingUrl({ baseUrl: links.baseUrl, callId: call.id, secret: links.recordingSecret, now })
          : '',
      metadata,
      ai_cost: call.ai_cost,
      telephony_cost: call.telephony_cost,
      total_cost: call.total_cost,
      telephony: call.telephony,
      opted_out: call.opted_out,
    } satisfies { [K in keyof CallEndedData]: unknown },
  };
}
export type CallEndedBody = ReturnType<typeof callEndedPayload>;
