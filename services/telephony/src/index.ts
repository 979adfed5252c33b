// The telephony service: SIP trunks, routing and admission, and real calls over SIP (src/sip) with
// RTP media (src/media). The call path itself (SipUserAgent, RtpSession) is exported for
// platform/bench/telephony, which measures real calls against sipp.
export { type CallRecordings, FolderRecordings, StoredRecordings } from './app/call-recordings';
export { migrations } from './db/migrations';
export { type TrunkHealthRow, trunkHealthRepository } from './db/trunk-health-repository';
export { type Admission, admit, dialSpacingMs, type TrunkLimits, type TrunkLoad } from './domain/admission';
export { chooseRoute, type RouteDecision } from './domain/routing';
export { RtpPortPool, type RtpProbe, RtpSession, synthesize } from './media';
export { createTelephonyService, type TelephonyServiceOptions, type TelephonyServiceParts } from './service';
export { type CallLeg, SipUserAgent } from './sip';
