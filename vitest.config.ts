import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['{shared,gateway,services/*,platform}/test/**/*.test.ts'],
    globalSetup: ['platform/test/global-setup.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 90_000,
    teardownTimeout: 30_000,
  },
});
