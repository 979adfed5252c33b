export * from './database';
export * from './infra';
