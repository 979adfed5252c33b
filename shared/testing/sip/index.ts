export * from './audio';
export * from './baresip';
export * from './clips';
export type { HeardSpeech, HeardSpeechOptions } from './live-dump';
export * from './recognise';
export * from './recording-analysis';
export * from './scenarios';
export * from './scripted-callee';
export * from './sipp';
