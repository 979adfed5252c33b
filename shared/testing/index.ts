export * from './calls';
export * from './database';
export * from './infra';
export * from './metrics';
export * from './paging';
export * from './process';
