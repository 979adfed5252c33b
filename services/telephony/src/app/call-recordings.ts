import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { RecordingStore } from '@voice/shared/recordings';

/**
 * Where a call's recording goes. The media path writes the WAV (stereo 8 kHz, agent left, callee
 * right) to `pathFor(callId)` while the call runs, then hands it over with `keep` once the file is
 * complete. The recording store (shared/src/recordings) plugs in here: its `keep` puts the file
 * in the store under the call's id.
 */
export interface CallRecordings {
  /** A local file to write the call's WAV to (its folder exists). */
  pathFor(callId: string): Promise<string>;
  /** The WAV at `file` is complete: keep it as the call's recording. True once it is kept. */
  keep(callId: string, file: string): Promise<boolean>;
  /** The call produced nothing worth keeping (never answered): drop the file. */
  discard(file: string): Promise<void>;
}

/**
 * Recordings kept in the recording store (files under DATA_DIR, or the JetStream object store on the
 * NATS topology, so any gateway serves any call). The WAV is written in a work folder of its own
 * while the call runs: the store only ever holds whole recordings.
 */
export class StoredRecordings implements CallRecordings {
  private readonly work: FolderRecordings;
  private store: Promise<RecordingStore> | undefined;

  /** `openStore` is called once, when the first recording is kept. */
  constructor(
    private readonly openStore: () => Promise<RecordingStore>,
    workFolder: string,
  ) {
    this.work = new FolderRecordings(workFolder);
  }

  pathFor(callId: string): Promise<string> {
    return this.work.pathFor(callId);
  }

  async keep(callId: string, file: string): Promise<boolean> {
    this.store ??= this.openStore();
    await (await this.store).put(callId, file);
    await rm(file, { force: true });
    return true;
  }

  discard(file: string): Promise<void> {
    return this.work.discard(file);
  }
}

/** Recordings kept as files `<callId>.wav` in one folder: for tests that read the files themselves. */
export class FolderRecordings implements CallRecordings {
  constructor(private readonly folder: string) {}

  async pathFor(callId: string): Promise<string> {
    await mkdir(this.folder, { recursive: true });
    // callId is a validated UUID: it cannot climb out of the folder.
    return path.join(this.folder, `${callId}.wav`);
  }

  async keep(): Promise<boolean> {
    return true;
  }

  async discard(file: string): Promise<void> {
    await rm(file, { force: true });
  }
}
