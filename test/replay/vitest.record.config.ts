import { defineConfig } from 'vitest/config';

// Only the recorder: `npm run record-histories` (never part of `npm test`).
export default defineConfig({
  test: {
    include: ['test/replay/*.record.ts'],
    testTimeout: 900_000,
    hookTimeout: 120_000,
    globalSetup: ['test/global-setup.ts'],
    setupFiles: ['test/setup.ts'],
  },
});
