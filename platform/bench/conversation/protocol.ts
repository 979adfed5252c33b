import type { SipCallEnd, SipConversation } from '@voice/shared';

// The messages between the conversation bench (platform/bench/conversation/index.ts) and the
// telephony service it runs in a process of its own (host.ts), over Node's IPC channel.

export type HostCommand =
  | {
      type: 'dial';
      id: number;
      callId: string;
      /** The scripted callee's `sip:127.0.0.1:<port>`. */
      uri: string;
      conversation: SipConversation;
      speech: { start_flow: string; end_flow: string };
    }
  /** The raw observations of the service's conversation histograms since the last take. */
  | { type: 'take'; id: number }
  /** The end-of-utterance wait of every VAD from its next frame on; null: the engine's default. */
  | { type: 'hangover'; id: number; ms: number | null };

export interface TakeReply {
  /** Histogram name -> values in seconds, in the order observed. */
  observed: Record<string, number[]>;
  /** conversation_barge_ins_total so far. */
  bargeIns: number;
}

export type HostMessage =
  | { type: 'reply'; id: number; ok: true; value?: unknown }
  | { type: 'reply'; id: number; ok: false; error: string }
  | { type: 'ended'; callId: string; end: SipCallEnd };

/** The histograms ConversationMetrics writes (services/telephony/src/conversation/metrics.ts). */
export const HISTOGRAMS = {
  turn: 'conversation_turn_latency_seconds',
  stt: 'conversation_stt_seconds',
  tts: 'conversation_tts_first_audio_seconds',
} as const;
