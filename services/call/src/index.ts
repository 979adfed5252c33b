export type {
  CallResult,
  CallSession,
  CarrierEvent,
  CarrierStage,
  DialRequest,
  TelephonyProvider,
} from './carrier/index';
export { migrations } from './db/migrations';
export { type CallServiceOptions, createCallService } from './service';
