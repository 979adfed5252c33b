import type { Metrics } from '@voice/shared';

/** What the conversation engine reports; every method is optional to call sites (no metrics in tests). */
export interface ConversationMetrics {
  /** End of the callee's speech -> the first packet of the agent's answer. */
  turn(ms: number): void;
  recognised(engine: string, ms: number): void;
  firstAudio(engine: string, ms: number): void;
  bargeIn(): void;
  amd(verdict: string): void;
  engineFailed(kind: 'stt' | 'tts' | 'brain'): void;
}

/** Turn latency lives around a second: buckets from 50 ms to 10 s. */
const TURN_BUCKETS = [0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 1, 1.25, 1.5, 2, 3, 5, 10];

export function conversationMetrics(metrics: Metrics): ConversationMetrics {
  const turn = metrics.histogram(
    'conversation_turn_latency_seconds',
    'From the end of the callee\u2019s speech to the first RTP packet of the agent\u2019s answer',
    [],
    TURN_BUCKETS,
  );
  const stt = metrics.histogram(
    'conversation_stt_seconds',
    'From the end of an utterance to its recognised text, by engine',
    ['engine'],
    TURN_BUCKETS,
  );
  const tts = metrics.histogram(
    'conversation_tts_first_audio_seconds',
    'From asking for a line\u2019s speech to its first audio, by engine',
    ['engine'],
    TURN_BUCKETS,
  );
  const bargeIns = metrics.counter(
    'conversation_barge_ins_total',
    'Times the callee talked over the agent and the agent stopped',
    [],
  );
  const amd = metrics.counter(
    'conversation_amd_verdicts_total',
    'Answering-machine detection verdicts: human, machine, uncertain (treated as a person)',
    ['verdict'],
  );
  const failures = metrics.counter(
    'conversation_engine_failures_total',
    'Speech recognition, synthesis or brain failures during calls, by kind',
    ['kind'],
  );
  return {
    turn: (ms) => turn.observe(ms / 1000),
    recognised: (engine, ms) => stt.observe({ engine }, ms / 1000),
    firstAudio: (engine, ms) => tts.observe({ engine }, ms / 1000),
    bargeIn: () => bargeIns.inc(),
    amd: (verdict) => amd.inc({ verdict }),
    engineFailed: (kind) => failures.inc({ kind }),
  };
}
