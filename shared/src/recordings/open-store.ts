import { join } from 'node:path';
import { connectWithRetry } from '../bus/nats/connection';
import { Naming } from '../bus/nats/naming';
import type { Config } from '../config';
import type { Logger } from '../log';
import { FileRecordingStore } from './file-store';
import { JetStreamRecordingStore, RECORDINGS_BUCKET } from './jetstream-store';
import type { RecordingStore } from './store';

const CONNECT_TIMEOUT_MS = 30_000;

/** The bucket of a deployment: BUS_PREFIX isolates it as it does streams (`<prefix>_voice-recordings`). */
export function recordingsBucket(prefix: string): string {
  return new Naming(prefix).stream(RECORDINGS_BUCKET);
}

/**
 * The recording store this deployment uses: the JetStream object store when NATS_URL is set (every
 * gateway replica must reach every recording), else files in DATA_DIR/recordings. The JetStream
 * store has its own connection, closed with the store.
 */
export async function openRecordingStore(
  config: Pick<Config, 'NATS_URL' | 'DATA_DIR' | 'BUS_PREFIX'>,
  options: { log: Logger; name: string; signal?: AbortSignal | undefined },
): Promise<RecordingStore> {
  if (!config.NATS_URL) return FileRecordingStore.open(join(config.DATA_DIR, 'recordings'));
  const nc = await connectWithRetry({
    servers: config.NATS_URL,
    name: `${options.name}-recordings`,
    log: options.log,
    timeoutMs: CONNECT_TIMEOUT_MS,
    signal: options.signal,
  });
  try {
    return await JetStreamRecordingStore.open({
      nc,
      bucket: recordingsBucket(config.BUS_PREFIX),
      ownsConnection: true,
    });
  } catch (error) {
    await nc.close();
    throw error;
  }
}
