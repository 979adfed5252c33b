// SIP signalling, client side: the public surface of src/sip (docs/telephony.md, "SIP signalling").
export type { CallLeg } from './call-leg';
export type { DigestCredentials } from './digest';
export type { CallEnded, CallProgress, CallProgressType } from './events';
export type { SipLogger, SipTimers, SipUserAgentOptions } from './options';
export {
  DEFAULT_SIP_PORT,
  parseTrunkUri,
  type SipTransportName,
  TRUNK_URI_MAX_LENGTH,
  type TrunkAddress,
  type TrunkUriVerdict,
  trunkUriIssues,
} from './trunk-uri';
export {
  type InviteOptions,
  type OptionsResult,
  SipConfigError,
  type SipTrunk,
  SipUserAgent,
} from './user-agent';
