export * from './audio';
export * from './baresip';
export * from './scenarios';
export * from './sipp';
