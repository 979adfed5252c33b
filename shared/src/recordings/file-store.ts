import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ByteRange, RecordingSource, RecordingStat, RecordingStore } from './store';
import { rangeWithin, recordingId, wavStat } from './store';

const TEMP_SUFFIX = '.partial';
/** A temporary file this old was left by a put that died with its process. */
const STALE_TEMP_MS = 24 * 60 * 60 * 1000;

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
}

/**
 * Recordings as files in one folder (DATA_DIR/recordings in the embedded default), named
 * `<call id>.wav`. A put writes a temporary name in the same folder and renames it over the final
 * one, which is atomic on one file system: readers see the old file or the new, never half of one.
 * A reader that opened the old file keeps reading it whole after a rename replaced it.
 */
export class FileRecordingStore implements RecordingStore {
  readonly kind = 'file' as const;

  private constructor(readonly dir: string) {}

  /** Creates the folder and removes temporary files left by puts that died a day ago or more. */
  static async open(dir: string): Promise<FileRecordingStore> {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const cutoff = Date.now() - STALE_TEMP_MS;
    for (const name of await readdir(dir)) {
      if (!name.endsWith(TEMP_SUFFIX)) continue;
      const path = join(dir, name);
      const info = await stat(path).catch(() => undefined);
      if (info && info.mtimeMs < cutoff) await rm(path, { force: true });
    }
    return new FileRecordingStore(dir);
  }

  async put(callId: string, source: RecordingSource): Promise<RecordingStat> {
    const final = this.path(callId);
    const temp = `${final}.${randomBytes(6).toString('hex')}${TEMP_SUFFIX}`;
    const input: Readable = typeof source === 'string' ? createReadStream(source) : source;
    try {
      // `flush` syncs the data before the rename, so a crash cannot leave a renamed but empty file.
      await pipeline(input, createWriteStream(temp, { flags: 'wx', mode: 0o600, flush: true }));
      await rename(temp, final);
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
    return wavStat((await stat(final)).size);
  }

  async stat(callId: string): Promise<RecordingStat | undefined> {
    try {
      return wavStat((await stat(this.path(callId))).size);
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  }

  async read(callId: string, range?: ByteRange): Promise<Readable | undefined> {
    let handle: Awaited<ReturnType<typeof open>>;
    try {
      handle = await open(this.path(callId), 'r');
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
    try {
      // The size of the file this handle holds, even if a put renamed another over its name since.
      const { start, end } = rangeWithin(range, (await handle.stat()).size);
      if (end < start) {
        await handle.close();
        return Readable.from([]);
      }
      return handle.createReadStream({ start, end, autoClose: true });
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  async delete(callId: string): Promise<boolean> {
    try {
      await unlink(this.path(callId));
      return true;
    } catch (error) {
      if (isMissing(error)) return false;
      throw error;
    }
  }

  async close(): Promise<void> {}

  private path(callId: string): string {
    return join(this.dir, `${recordingId(callId)}.wav`);
  }
}
