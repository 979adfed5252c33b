// The telephony service: SIP trunks, routing and admission, and real calls over SIP (src/sip) with
// RTP media (src/media).
export { type CallRecordings, FolderRecordings, StoredRecordings } from './app/call-recordings';
export { migrations } from './db/migrations';
export { type TrunkHealthRow, trunkHealthRepository } from './db/trunk-health-repository';
export { type Admission, admit, dialSpacingMs, type TrunkLimits, type TrunkLoad } from './domain/admission';
export { chooseRoute, type RouteDecision } from './domain/routing';
export { createTelephonyService, type TelephonyServiceOptions, type TelephonyServiceParts } from './service';
// The call path itself, for platform/bench/telephony (real calls measured against sipp).
export { type RtpProbe, RtpPortPool, RtpSession, synthesize } from './media';
export { type CallLeg, SipUserAgent } from './sip';
