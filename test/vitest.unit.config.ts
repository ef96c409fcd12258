import { defineConfig } from 'vitest/config';

// `npm run test:unit`: the fast tests, found by their name: `*.unit.test.ts` (the pure rules,
// config, contract, ledger folds, the pure workflow helpers, the report, the bench's math, the
// lane's admission books). No dev server, no worker, no Temporal CLI, no object store: no global
// set-up, and it runs in about a minute. `npm test` runs these too, with everything else.
// test/lint/unit-tests.unit.test.ts checks that no file so named reaches for any of those.
export default defineConfig({
  test: {
    include: ['test/**/*.unit.test.ts'],
    exclude: ['test/cluster/**'],
    // A limit against a hang, not a speed check (those are benchmarks): the whole suite's 120 s.
    // With vitest's 5 s default, a CPU-bound simulation ran past it on a box at load 35.
    testTimeout: 120_000,
    pool: 'forks',
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
  },
});
