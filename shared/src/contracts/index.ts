// @voice/shared/contracts: what the services and the gateway agree on (schemas, subjects, the
// error catalogue), with zod as its only dependency, so a pure domain module can use it without
// pulling in the bus or database clients.
export * from '../errors';
export * from '../validation';
export * from './account';
export * from './agent';
export * from './call';
export * from './call-export';
export * from './calling-window';
export * from './campaign';
export * from './campaign-validation';
export * from './common';
export * from './discovery';
export * from './do-not-call';
export * from './events';
export * from './examples';
export * from './notices';
export * from './rpc-contract';
export * from './sip-trunks';
export * from './sip-uri';
export * from './subjects';
export * from './telephony';
export * from './telephony-calls';
export * from './text';
export * from './webhook';
