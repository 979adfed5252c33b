export { defaultRetryDelayMs } from './durable-policy';
export * from './errors';
export { InProcessBus, type InProcessBusOptions } from './in-process';
export { NatsBus, type NatsBusOptions } from './nats';
export * from './rpc';
export { subjectMatches } from './subject-match';
export * from './types';
export { waitAtMost } from './wait';
export { EncodedJson } from './wire';
