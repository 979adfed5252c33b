import { type Call, hasRecording, signRecordingUrl } from '@voice/shared';

/** Issues recording links for call records the gateway returns. */
export interface RecordingLinks {
  sign(callId: string): string;
}

export function recordingLinks(secret: string, baseUrl: () => string): RecordingLinks {
  return { sign: (callId) => signRecordingUrl({ baseUrl: baseUrl(), callId, secret }) };
}

/** A finished call with talk time gets a fresh signed link; anything else has no audio: `""`. */
export function withRecordingUrl(call: Call, links: RecordingLinks): Call {
  return { ...call, recording_url: hasRecording(call) ? links.sign(call.id) : '' };
}

/** A page of calls, each with its link. */
export function withRecordingUrls<P extends { items: Call[] }>(page: P, links: RecordingLinks): P {
  return { ...page, items: page.items.map((call) => withRecordingUrl(call, links)) };
}
