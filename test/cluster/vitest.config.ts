import { defineConfig } from 'vitest/config';

// `npm run test:cluster`: the loop on a self-hosted Temporal cluster (the server built from the Go
// module proxy, PostgreSQL, 4 history shards), as docs/operating.md's cluster section sets it up.
export default defineConfig({
  test: {
    include: ['test/cluster/**/*.test.ts'],
    pool: 'forks',
    poolOptions: { forks: { maxForks: 1, minForks: 1 } },
    testTimeout: 300_000,
    // The first run builds the server: minutes on two cores.
    hookTimeout: 300_000,
    globalSetup: ['test/cluster/global-setup.ts'],
    setupFiles: ['test/setup.ts'],
  },
});
