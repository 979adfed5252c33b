import type { CallEndReason, CallOutcome, CollectedDetail, EndedBy, TranscriptEntry } from '@voice/shared';
import type { z } from 'zod';

export type CallEndReasonValue = z.infer<typeof CallEndReason>;
export type EndedByValue = z.infer<typeof EndedBy>;
export type TranscriptLine = z.infer<typeof TranscriptEntry>;
export type CallSentiment = 'positive' | 'neutral' | 'negative';
export type DetailsStatus = 'complete' | 'partial' | 'none';

/**
 * What the carrier needs to know about the agent. It travels inside the dial request because the
 * call service must not reach into the agent service: the snapshot is taken when the call is placed,
 * so a later edit of the agent does not change a call already in flight (or its re-planned resume).
 */
export interface AgentSnapshot {
  id: string;
  name: string;
  agent_type: string;
  goal: string;
  language: string;
  start_flow: string;
  end_flow: string;
  collects: CollectedDetail[];
}

export interface DialRequest {
  callId: string;
  from: string;
  to: string;
  agent: AgentSnapshot;
  metadata: Record<string, unknown> | null;
  /** when dialing began (simulated clock origin) */
  startedAt: Date;
}

export interface DetailsCollectionResult {
  status: DetailsStatus;
  score: number;
  collected_details: string[];
  collected_values: Record<string, unknown>;
}

export interface CallResult {
  status: CallOutcome;
  answered_at: Date | null;
  ended_at: Date;
  duration_seconds: number;
  transcript: TranscriptLine[];
  sentiment: CallSentiment | null;
  call_summary: string;
  call_end_reason: CallEndReasonValue;
  ended_by: EndedByValue;
  details_collection: DetailsCollectionResult;
  ai_cost: number;
  telephony_cost: number;
  total_cost: number;
}

export type CarrierEvent =
  | { type: 'ringing'; at: Date }
  | { type: 'answered'; at: Date }
  | { type: 'ended'; at: Date; result: CallResult };

/** The last stage whose event the call service has stored (its call status). */
export type CarrierStage = 'initializing' | 'ringing' | 'in_progress';

export interface CallSession {
  /** ends the call now as a hang-up by the system (result reason 'cancelled') */
  hangUp(): Promise<void>;
  readonly done: Promise<void>;
}

export interface TelephonyProvider {
  /** Starts a call; events are delivered in order, each awaited before the next; the last is 'ended'. */
  dial(request: DialRequest, onEvent: (event: CarrierEvent) => Promise<void>): CallSession;
  /**
   * After a restart: continue a call already at `stage` (events up to it were delivered), delivering
   * only the remaining ones; events already due are delivered at once.
   */
  resume(
    request: DialRequest,
    stage: CarrierStage,
    onEvent: (event: CarrierEvent) => Promise<void>,
  ): CallSession;
  /**
   * The recording of a finished call as a WAV byte stream (synthesised, constant memory), from
   * byte `offset` (default 0) on; `contentLength` is always the whole file's.
   */
  recording(request: { callId: string; durationSeconds: number; offset?: number }): {
    contentType: 'audio/wav';
    contentLength: number;
    stream: NodeJS.ReadableStream;
  };
  /** Longest a call can last (simulated seconds); the call service's reaper uses it. */
  readonly maxCallSeconds: number;
}
