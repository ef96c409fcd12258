import { describe, expect, it } from 'vitest';
import { givenUpRunRow, MAX_CHILD_ATTEMPTS } from '../../src/ledger/report-fold.js';
import type { RunRow } from '../../src/ledger/rows.js';
import type { RunReport } from '../../src/workflows/messages.js';
import type { PackageChampion } from '../../src/activities/types.js';
import {
  boundedReason,
  boundedRunReport,
  boundedText,
  championWithinBounds,
  MAX_CHAMPION_CHARS,
  MAX_ERROR_CHARS,
  MAX_EVALS_PER_REPORT,
  MAX_REASON_CHARS,
} from '../../src/workflows/report-shapes.js';

// Issue 18: the row of a run the loop gave up on, and the bounds on what arrives by signal. The
// generation workflow and the ledger exporter call these same functions.

describe('a run given up on', () => {
  it('is a train_failed row saying how many attempts, which child was last and why', () => {
    const row = givenUpRunRow(
      { generation: 2, round: 7, seed: 1007, candidate: 'wide', runId: 'champ-g002-r0007-wide' },
      'champion-loop/l/g002/r0007/wide.3',
      'was terminated',
      '2026-01-02T03:04:05.000Z',
    );
    expect(row).toEqual({
      type: 'run',
      generation: 2,
      round: 7,
      seed: 1007,
      candidate: 'wide',
      run_id: 'champ-g002-r0007-wide',
      config_path: '',
      config_sha256: '',
      status: 'train_failed',
      train_rc: null,
      started: '2026-01-02T03:04:05.000Z',
      finished: '2026-01-02T03:04:05.000Z',
      epochs_run: null,
      checkpoints: [],
      error: `given up after ${MAX_CHILD_ATTEMPTS} attempts that ended without a report; the last (champion-loop/l/g002/r0007/wide.3): was terminated`,
    });
  });
});

describe('bounds on what arrives by signal', () => {
  it('cuts a text over its bound and says so; a text within it is unchanged', () => {
    expect(boundedText('abc', 3)).toBe('abc');
    expect(boundedText('abcd', 3)).toBe('abc [cut: 4 characters sent, the first 3 kept]');
    const reason = 'x'.repeat(3_000_000);
    expect(boundedReason(reason)).toBe(
      `${'x'.repeat(MAX_REASON_CHARS)} [cut: 3000000 characters sent, the first ${MAX_REASON_CHARS} kept]`,
    );
    expect(boundedReason('corpus relabelled')).toBe('corpus relabelled');
  });

  const report = (changes: Partial<RunReport>): RunReport => ({
    childId: 'c',
    jobId: 'j',
    run: null,
    evals: [],
    selected: null,
    laneUnavailable: false,
    unscored: [],
    ...changes,
  });

  it('a run report: refused over the eval row bound, its error text cut, the same object when within bounds', () => {
    const within = report({});
    expect(boundedRunReport(within)).toBe(within);
    expect(
      boundedRunReport(report({ evals: new Array(MAX_EVALS_PER_REPORT + 1).fill({}) as RunReport['evals'] })),
    ).toBeNull();
    expect(boundedRunReport(report({ unscored: new Array<string>(MAX_EVALS_PER_REPORT + 1).fill('c') }))).toBeNull();
    const run = { run_id: 'r', error: 'e'.repeat(MAX_ERROR_CHARS + 5) } as RunRow;
    const cut = boundedRunReport(report({ run }));
    expect(cut?.run?.error).toBe(
      `${'e'.repeat(MAX_ERROR_CHARS)} [cut: ${MAX_ERROR_CHARS + 5} characters sent, the first ${MAX_ERROR_CHARS} kept]`,
    );
    expect(run.error).toHaveLength(MAX_ERROR_CHARS + 5);
  });

  it('a champion for packaging: within bounds as the generation sends it, not with megabytes in a field', () => {
    const champion: PackageChampion = {
      generation: 1,
      run_id: 'r',
      epoch: 3,
      checkpoint_name: 'checkpoint-0003.pt',
      checkpoint: '/runs/r/checkpoint-0003.pt',
      config_path: '/runs/r/config.yaml',
      eval_json: '/runs/r/eval.json',
      requested: '2026-01-01T00:00:00.000Z',
    };
    expect(championWithinBounds(champion)).toBe(true);
    expect(championWithinBounds({ ...champion, checkpoint: 'x'.repeat(MAX_CHAMPION_CHARS) })).toBe(false);
  });
});
