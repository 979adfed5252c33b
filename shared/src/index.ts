export * from './bus/index';
export * from './config';
export * from './contracts/index';
export * from './db/index';
export * from './errors';
export * from './log';
export * from './service/index';
export * from './validation';
