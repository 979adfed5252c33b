import { appendFile, cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SOURCE_HASH_FILE, sourceHash } from '../dashboard/source-hash';

const dashboard = join(import.meta.dirname, '../dashboard');

/**
 * The dashboard's bundle is committed (gateway/dashboard/dist, docs/dashboard.md) so that no user
 * needs a build step. The build records a hash of the inputs it was made from: a source changed
 * without `pnpm dashboard:build` shows here.
 */
describe('the committed dashboard bundle', () => {
  it('was built from the source as it is', async () => {
    const recorded = (await readFile(join(dashboard, 'dist', SOURCE_HASH_FILE), 'utf8')).trim();
    expect(recorded, 'gateway/dashboard/dist is stale: run pnpm dashboard:build and commit it').toBe(
      sourceHash(dashboard),
    );
  });

  it('changes with any input file', async () => {
    const copy = await mkdtemp(join(tmpdir(), 'dashboard-source-'));
    try {
      for (const input of ['src', 'index.html', 'vite.config.ts', 'package.json', 'tsconfig.json']) {
        await cp(join(dashboard, input), join(copy, input), { recursive: true });
      }
      expect(sourceHash(copy)).toBe(sourceHash(dashboard));
      await appendFile(join(copy, 'src/styles.css'), '\n');
      expect(sourceHash(copy)).not.toBe(sourceHash(dashboard));
    } finally {
      await rm(copy, { recursive: true, force: true });
    }
  });
});
