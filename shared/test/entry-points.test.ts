import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

const SHARED = fileURLToPath(new URL('../', import.meta.url));

/** Every file a bundle of `entry` is made of, relative to the shared package. */
async function bundledFiles(entry: string): Promise<string[]> {
  const result = await build({
    entryPoints: [fileURLToPath(new URL(entry, `file://${SHARED}`))],
    bundle: true,
    platform: 'node',
    format: 'esm',
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  return Object.keys(result.metafile.inputs);
}

describe('@voice/shared entry points', () => {
  it('/contracts bundles its own sources and zod, nothing of the bus, the database or logging', async () => {
    const files = await bundledFiles('./src/contracts/index.ts');
    const packages = new Set(
      files
        .filter((f) => f.includes('node_modules/'))
        .map((f) => /.*node_modules\/((@[^/]+\/)?[^/]+)/.exec(f)![1]),
    );
    expect([...packages]).toEqual(['zod']);
    const own = files.filter((f) => !f.includes('node_modules/'));
    for (const file of own) expect(file).toMatch(/^(shared\/)?src\/(contracts\/|errors\.ts|validation\.ts)/);
    expect(own.length).toBeGreaterThan(10);
  });

  it('the whole package, by contrast, pulls in the NATS and PostgreSQL clients', async () => {
    const files = await bundledFiles('./src/index.ts');
    expect(files.some((f) => f.includes('node_modules/postgres/'))).toBe(true);
    expect(files.some((f) => f.includes('node_modules/@nats-io/'))).toBe(true);
  });
});
