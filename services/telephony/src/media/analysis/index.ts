// Audio analysis of what the callee says: voice activity, the answering machine's beep, and
// answering-machine detection. DSP and streaming state only, fed the RTP session's 20 ms frames.
export {
  AMD_RULES,
  type AmdFeatures,
  type AmdReason,
  type AmdRule,
  type AmdThresholds,
  type AmdVerdict,
  amdThresholds,
  DEFAULT_AMD_THRESHOLDS,
  decideAmd,
} from '../../domain/amd';
export { type AmdResult, AnsweringMachineDetector } from './amd';
export { BeepDetector, type BeepEvent, type BeepOptions } from './beep';
export { type VadEvent, type VadOptions, VoiceActivityDetector } from './vad';
export { VoicemailBeepWaiter, type VoicemailCue, type VoicemailWaitOptions } from './voicemail';
