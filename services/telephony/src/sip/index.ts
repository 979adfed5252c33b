// SIP signalling, client side: the public surface of src/sip (docs/telephony.md, "SIP signalling").
export type { CallLeg } from './call-leg';
export type { DigestCredentials } from './digest';
export type { CallEnded, CallProgress, CallProgressType } from './events';
export type { SipLogger, SipTimers, SipUserAgentOptions } from './options';
export {
  type InviteOptions,
  type OptionsResult,
  SipConfigError,
  type SipTrunk,
  SipUserAgent,
} from './user-agent';
