import { defineConfig } from 'vitest/config';
import LongestFirst from './platform/test/support/longest-first';

export default defineConfig({
  resolve: {
    // graphql ships CommonJS and ESM copies; Node (and so @graphql-tools, Apollo, graphql-ws) loads
    // the CommonJS one, while Vite would pick the ESM one for our sources: two "graphql" modules.
    alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }],
  },
  test: {
    include: ['{shared,gateway,services/*,platform,client}/test/**/*.test.ts'],
    globalSetup: ['platform/test/global-setup.ts'],
    pool: 'forks',
    // One more worker than the 2 cores CI has: many files mostly wait (real-time audio, restarts,
    // timers), and with two workers the cores sat about 40% idle over a run.
    maxWorkers: 3,
    // Longest files first, by recorded durations: a fresh clone has no cache to order by.
    sequence: { sequencer: LongestFirst },
    // Tests wait for conditions, each with its own deadline; these bounds only catch a hang. They
    // are set for a loaded machine (both cores busy), where a platform start or a call takes
    // several times as long as on a quiet one.
    testTimeout: 120_000,
    hookTimeout: 180_000,
    teardownTimeout: 30_000,
  },
});
