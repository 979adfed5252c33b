import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

const made = new Map<string, Promise<string>>();

/**
 * A copy of `modelDir` (its files linked, not copied) whose feature parameters fit 8 kHz audio:
 * the model's own feat.params sets a 6.8 kHz filter bank, above the 4 kHz Nyquist limit, and
 * overrides the command line. Kept for measurement: upsampling recognised far better. The folder
 * (links and one small file) is made once per process and left in the temp directory.
 */
export function narrowbandModel(modelDir: string): Promise<string> {
  let dir = made.get(modelDir);
  if (!dir) {
    dir = build(modelDir);
    made.set(modelDir, dir);
    dir.catch(() => made.delete(modelDir));
  }
  return dir;
}

async function build(modelDir: string): Promise<string> {
  const dir = path.join(tmpdir(), `stt-narrowband-${process.pid}-${path.basename(modelDir)}`);
  await mkdir(dir, { recursive: true });
  for (const file of ['mdef', 'means', 'noisedict', 'sendump', 'transition_matrices', 'variances']) {
    await symlink(path.join(modelDir, file), path.join(dir, file)).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'EEXIST') throw err;
    });
  }
  const params = await readFile(path.join(modelDir, 'feat.params'), 'utf8');
  await writeFile(path.join(dir, 'feat.params'), params.replace(/^-upperf\s+\S+/m, '-upperf 3800'));
  return dir;
}
