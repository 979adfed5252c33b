export * from './connect';
export * from './inbox';
export * from './migrate';
export * from './outbox';
export * from './paging';
export * from './types';
