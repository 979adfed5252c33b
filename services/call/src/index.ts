export type {
  CallResult,
  CallSession,
  CarrierEvent,
  CarrierStage,
  DialRequest,
  TelephonyProvider,
} from './carrier/index';
export { SimulatedCarrier } from './carrier/simulated-carrier';
export { migrations } from './db/migrations';
export { type CallServiceOptions, createCallService } from './service';
