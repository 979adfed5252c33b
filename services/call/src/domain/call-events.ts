import type {
  CallEndReason,
  CallOutcome,
  EndedBy,
  SipResponse,
  TranscriptEntry,
} from '@voice/shared/contracts';
import type { z } from 'zod';

// What happens on a call, as the carrier reports it: the input of the call's state machine
// (lifecycle.ts). Any network (the simulated carrier, SIP) speaks these.

export type CallEndReasonValue = z.infer<typeof CallEndReason>;
export type EndedByValue = z.infer<typeof EndedBy>;
export type TranscriptLine = z.infer<typeof TranscriptEntry>;
export type CallSentiment = 'positive' | 'neutral' | 'negative';
export type DetailsStatus = 'complete' | 'partial' | 'none';

export interface DetailsCollectionResult {
  status: DetailsStatus;
  score: number;
  collected_details: string[];
  collected_values: Record<string, unknown>;
}

/**
 * Details as a network that does not know the agent reports them (a SIP call's conversation
 * engine: values by detail name). The record's details_collection is made from them and the
 * agent's collects when the result is applied to the call (app/transitions.ts).
 */
export interface ReportedDetails {
  reported: Record<string, unknown>;
}

/**
 * How a call ended. Times are wall-clock times at which things happened (never in the future);
 * duration_seconds is the wall time from answer to hang-up, and the costs follow it.
 */
export interface CallResult {
  status: CallOutcome;
  answered_at: Date | null;
  ended_at: Date;
  duration_seconds: number;
  transcript: TranscriptLine[];
  /** neutral when there was no conversation */
  sentiment: CallSentiment;
  call_summary: string;
  call_end_reason: CallEndReasonValue;
  ended_by: EndedByValue;
  details_collection: DetailsCollectionResult | ReportedDetails;
  /** The person called asked not to be called again. */
  opted_out: boolean;
  ai_cost: number;
  telephony_cost: number;
  total_cost: number;
  /** The final SIP response to the INVITE; null when there was none (or the network speaks no SIP). */
  sip: SipResponse | null;
  /**
   * Whether the network kept a recording of the call; absent for a carrier that synthesises its
   * recordings on request (the simulated one).
   */
  recorded?: boolean;
}

export type CarrierEvent =
  | { type: 'ringing'; at: Date }
  | { type: 'answered'; at: Date; sip: SipResponse | null }
  | { type: 'ended'; at: Date; result: CallResult };

/** The last stage whose event the call service has stored (its call status). */
export type CarrierStage = 'initializing' | 'ringing' | 'in_progress';
