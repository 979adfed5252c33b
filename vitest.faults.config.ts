import { defineConfig } from 'vitest/config';

/**
 * `pnpm test:faults`: the fault suite (platform/faults), apart from `pnpm test`. It starts its own
 * nats-server (to restart it) and the production topology as separate processes
 * (`pnpm start:cluster`) on the PostgreSQL at DATABASE_URL (default: the local server), so it needs
 * no global setup. One file at a time: it uses most of the machine.
 */
export default defineConfig({
  resolve: {
    // As in vitest.config.ts: one "graphql" module (the support code reaches the platform's).
    alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }],
  },
  test: {
    include: ['platform/faults/**/*.faults.ts'],
    pool: 'forks',
    maxWorkers: 1,
    testTimeout: 330_000,
    hookTimeout: 150_000,
    teardownTimeout: 60_000,
  },
});
