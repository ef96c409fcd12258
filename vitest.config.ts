import { configDefaults, defineConfig } from 'vitest/config';
import ToolsLastSequencer from './test/tools-last-sequencer.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The cluster tests build a Temporal server and run PostgreSQL: `npm run test:cluster`.
    exclude: [...configDefaults.exclude, 'test/cluster/**'],
    // Workflow tests start real dev servers and workers; two cores want few at once.
    pool: 'forks',
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    testTimeout: 120_000,
    hookTimeout: 120_000,
    globalSetup: ['test/global-setup.ts'],
    // The tracing test waits for Jaeger's background build: it runs last.
    sequence: { sequencer: ToolsLastSequencer },
    setupFiles: ['test/setup.ts'],
  },
});
