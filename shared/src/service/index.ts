export * from './call-ended';
export * from './service';
