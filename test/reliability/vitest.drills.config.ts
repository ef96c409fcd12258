import { defineConfig } from 'vitest/config';

// The fault drills: `npm run fault-drills` (never part of `npm test`). The reliability tests
// run too, so that one drill output shows every fault's numbers.
export default defineConfig({
  test: {
    include: ['test/reliability/drills/*.drill.ts', 'test/reliability/*.test.ts'],
    pool: 'forks',
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    testTimeout: 1_200_000,
    hookTimeout: 300_000,
    globalSetup: ['test/global-setup.ts'],
    setupFiles: ['test/setup.ts'],
  },
});
