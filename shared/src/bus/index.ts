export * from './errors';
export { InProcessBus } from './in-process';
export * from './rpc';
export { subjectMatches } from './subject-match';
export * from './types';
