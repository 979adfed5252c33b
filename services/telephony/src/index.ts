// The telephony service: SIP trunks, routing and admission (here), SIP signalling (src/sip) and
// RTP media (src/media) for real calls.
export { migrations } from './db/migrations';
export { type Admission, admit, dialSpacingMs, type TrunkLimits, type TrunkLoad } from './domain/admission';
export { chooseRoute, type RouteDecision } from './domain/routing';
export { createTelephonyService, type TelephonyServiceParts } from './service';
