import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config, Logger } from '@voice/shared';

const FILE = 'recording-url-secret';

/**
 * The key for recording links: RECORDING_URL_SECRET, or one generated once and kept in DATA_DIR so
 * links survive restarts. Several gateway or webhook processes must share the configured one.
 */
export async function recordingSecret(config: Config, log: Logger): Promise<string> {
  if (config.RECORDING_URL_SECRET) return config.RECORDING_URL_SECRET;
  const path = join(config.DATA_DIR, FILE);
  const saved = (await readFile(path, 'utf8').catch(() => '')).trim();
  if (saved.length >= 32) return saved;
  const secret = randomBytes(32).toString('base64url');
  await mkdir(config.DATA_DIR, { recursive: true });
  await writeFile(path, `${secret}\n`, { mode: 0o600 });
  if (config.NATS_URL) {
    log.warn(
      'RECORDING_URL_SECRET is not set: generated one in DATA_DIR; set it for every gateway and webhook instance',
    );
  }
  return secret;
}
