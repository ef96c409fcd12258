import { defineConfig } from 'vitest/config';

// `npm run test:unit`: the pure modules' tests only (rules, config, contract, ledger folds, the
// pure workflow helpers, the report, the bench's math). No dev server, no worker, no Temporal
// CLI: no global setup, and it runs in seconds. `npm test` runs these too, with everything else.
export default defineConfig({
  test: {
    include: [
      'test/rules/**/*.test.ts',
      'test/config/**/*.test.ts',
      'test/contract/**/*.test.ts',
      'test/ledger/**/*.test.ts',
      'test/ledger-copy/copy-files.test.ts',
      'test/ledger-copy/copy-check.test.ts',
      'test/ledger-copy/loop-ledger.test.ts',
      'test/lint/**/*.test.ts',
      'test/workflows/lanes.test.ts',
      'test/workflows/hand-over.test.ts',
      'test/workflows/round-progress.test.ts',
      'test/workflows/teacher-plan.test.ts',
      'test/workflows/details*.test.ts',
      'test/client/report/**/*.test.ts',
      'test/client/carry-from-ledger.test.ts',
      'test/workflows/history-handling-order.test.ts',
      'test/client/registry-words.test.ts',
      'test/client/seed-state-dir.test.ts',
      'test/client/loop-id.test.ts',
      'test/client/relocation.test.ts',
      'test/bench/bench-math.test.ts',
      'test/bench/growth*.test.ts',
      'test/bench/fleet*.test.ts',
      'test/bench/fairness*.test.ts',
      'test/sim/**/*.test.ts',
      'test/metrics/loop-figures.test.ts',
      'test/metrics/dashboard.test.ts',
      'test/registry/mlflow-settings.test.ts',
      'test/notify/events.test.ts',
      'test/notify/payloads.test.ts',
      'test/notify/settings.test.ts',
    ],
    pool: 'forks',
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
  },
});
