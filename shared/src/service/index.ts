export * from './agent-copies';
export * from './call-ended';
export * from './poll-loop';
export * from './poll-worker';
export * from './service';
