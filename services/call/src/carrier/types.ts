import type { CollectedDetail, TelephonyProviderInfo } from '@voice/shared';
import type { CarrierEvent, CarrierStage } from '../domain/call-events';

export type {
  CallEndReasonValue,
  CallResult,
  CallSentiment,
  CarrierEvent,
  CarrierStage,
  DetailsCollectionResult,
  DetailsStatus,
  EndedByValue,
  ReportedDetails,
  TranscriptLine,
} from '../domain/call-events';

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
  /** The voice its flows are spoken with (a real network synthesises them); the simulated carrier needs none. */
  voice?: string | undefined;
  /** The model its conversation runs on (a real network's conversation engine); the simulated carrier needs none. */
  ai_model?: string | undefined;
}

export interface DialRequest {
  callId: string;
  /** The call's account: a real network's requests are made on its behalf. */
  accountId?: string | undefined;
  /** The SIP trunk the call goes out through (TELEPHONY.route chose it at placement); null: none. */
  trunkId?: string | null | undefined;
  from: string;
  to: string;
  agent: AgentSnapshot;
  metadata: Record<string, unknown> | null;
  /**
   * The hash of the prompt the call was placed with: a real network's conversation engine is given
   * that prompt (the call service keeps the text of SIP calls' prompts by it).
   */
  promptHash?: string | undefined;
  /** When dialing began (wall clock): the origin of the call's timeline. */
  startedAt: Date;
}

export interface CallSession {
  /** ends the call now as a hang-up by the system (result reason 'cancelled') */
  hangUp(): Promise<void>;
  readonly done: Promise<void>;
}

export interface TelephonyProvider {
  /** What it is (GET /v1/health reports it; each call record names its carrier). */
  readonly info: TelephonyProviderInfo;
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
  /**
   * Longest a call can last, in simulated seconds (wall time: that × SIM_TIME_SCALE) for the
   * simulated carrier, in wall seconds for a real one; the reaper uses it.
   */
  readonly maxCallSeconds: number;
}
