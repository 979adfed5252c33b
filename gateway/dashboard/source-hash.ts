import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** What the bundle is built from: the source, the page, the build settings and the pinned versions. */
const INPUTS = ['src', 'index.html', 'vite.config.ts', 'package.json', 'tsconfig.json'];

/** The file the build writes the hash into (dist/), read by gateway/test/dashboard-bundle.test.ts. */
export const SOURCE_HASH_FILE = 'source-hash.txt';

/**
 * A hash over the dashboard's inputs (paths and contents, in a fixed order): the build records it
 * beside the bundle, so a test can tell a committed bundle that its source has moved past.
 */
export function sourceHash(root: string): string {
  const hash = createHash('sha256');
  const files: string[] = [];
  for (const input of INPUTS) {
    const path = join(root, input);
    try {
      for (const entry of readdirSync(path, { recursive: true, withFileTypes: true })) {
        if (entry.isFile()) files.push(join(entry.parentPath, entry.name));
      }
    } catch {
      files.push(path);
    }
  }
  for (const file of files.map((f) => relative(root, f).split('\\').join('/')).sort()) {
    hash.update(`${file}\0`);
    hash.update(readFileSync(join(root, file)));
    hash.update('\0');
  }
  return hash.digest('hex');
}
