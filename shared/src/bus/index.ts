export * from './errors';
export { InProcessBus } from './in-process';
export { NatsBus, type NatsBusOptions } from './nats';
export * from './rpc';
export { subjectMatches } from './subject-match';
export * from './types';
