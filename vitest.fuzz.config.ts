import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

/**
 * `pnpm test:fuzz`: the HTTP fuzz suite (platform/fuzz/*.fuzz.ts), kept out of `pnpm test`. The
 * same resolution and global setup as the main suite (embedded PostgreSQL; the `nats` mode when
 * NATS_URL and DATABASE_URL answer), one platform per mode. Each mode is a file of its own and the
 * two run side by side: one mode's platform and its fuzzing client share one thread, and its slow
 * attacks mostly wait, so one file at a time left the second core idle.
 */
export default defineConfig({
  resolve: base.resolve,
  test: {
    include: ['platform/fuzz/**/*.fuzz.ts'],
    globalSetup: ['platform/test/global-setup.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 600_000,
    hookTimeout: 90_000,
    teardownTimeout: 30_000,
  },
});
