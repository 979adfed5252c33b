export type { ContactInfo } from './contact';
export {
  type CallPlan,
  cutShort,
  MAX_CALL_SECONDS,
  outcomeFor,
  type PlannedEvent,
  planCall,
  TIMINGS,
  wallTime,
} from './plan';
export { connectedSeconds, costs, RATES, reportedDetails } from './result';
export { SimulatedCarrier, type SimulatedCarrierOptions } from './simulated-carrier';
export { type ApplyEvent, SIP_PROGRESS_DURABLE, SipCarrier, type SipCarrierOptions } from './sip-carrier';
export { sipCallResult, sipCarrierEvent, undialedEnd } from './sip-result';
export type {
  AgentSnapshot,
  CallEndReasonValue,
  CallResult,
  CallSentiment,
  CallSession,
  CarrierEvent,
  CarrierStage,
  DetailsCollectionResult,
  DetailsStatus,
  DialRequest,
  EndedByValue,
  ReportedDetails,
  TelephonyProvider,
  TranscriptLine,
} from './types';
export { synthesizeRecording, WAV_FORMAT, WAV_HEADER_BYTES } from './wav';
