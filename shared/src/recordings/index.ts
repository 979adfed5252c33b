export { FileRecordingStore } from './file-store';
export { RecordingChangedError } from './jetstream-chunks';
export {
  JetStreamRecordingStore,
  type JetStreamRecordingStoreOptions,
  RECORDINGS_BUCKET,
} from './jetstream-store';
export { openRecordingStore, recordingsBucket } from './open-store';
export * from './signing';
export * from './store';
