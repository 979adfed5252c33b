// The media side of a call: SDP offer/answer, RTP/RTCP, DTMF, recording and speech playback.
export { FRAME_SAMPLES, type G711Codec, SAMPLE_RATE } from './codec';
export { PortPoolExhaustedError, type PortPoolOptions, type RtpPortPair, RtpPortPool } from './port-pool';
export type { ReportBlock, RtcpReport, SenderInfo } from './rtcp';
export {
  type RtpProbe,
  RtpSession,
  type RtpSessionEvents,
  type RtpSessionOptions,
  type RtpSessionStats,
} from './rtp-session';
export { buildOffer, type NegotiatedMedia, type OfferOptions, parseAnswer, SdpAnswerError } from './sdp';
export { type SynthesizeOptions, synthesize, type TtsEngine, TtsError } from './tts';
