export * from './agent-copies';
export * from './call-ended';
export * from './clock';
export * from './poll-loop';
export * from './poll-worker';
export * from './service';
