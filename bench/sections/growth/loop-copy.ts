// A growth size's loop: its folder as `champion-loop start` would be given, and a synthetic ledger
// copy in its state dir, built through the loop's own folds (lib/synthetic-ledger.ts).
import { mkdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { stringify } from 'yaml';
import { loadLoopConfig } from '../../../src/config/load-loop-config.js';
import type { LoopConfig } from '../../../src/config/loop-config.js';
import { foldRows, updatedTime } from '../../../src/ledger/from-ledger.js';
import { foldSettingsOf, stateJson, type LoopState, type StateJson } from '../../../src/ledger/loop-state.js';
import type { LedgerRow } from '../../../src/ledger/rows.js';
import { appendLedgerRows, writeStateCopy } from '../../../src/ledger-copy/copy-files.js';
import { timed } from '../../lib/stats.js';
import { rowsThroughEvals, syntheticLedger } from '../../lib/synthetic-ledger.js';

/** Evaluations past the copy: the rows the keeper appends in its steady passes. */
const TAIL_EVALS = 300;

/** A loop folder as `champion-loop start` would be given: loop.yaml and an (empty) candidates file. */
export async function loopFolder(dir: string): Promise<{ file: string; config: LoopConfig }> {
  await mkdir(path.join(dir, 'data'), { recursive: true });
  await writeFile(path.join(dir, 'candidates.yaml'), stringify({ candidates: [] }));
  const file = path.join(dir, 'loop.yaml');
  const stub = ['/bin/true'];
  await writeFile(
    file,
    stringify({
      data_root: 'data',
      candidates: 'candidates.yaml',
      state_dir: 'state',
      runs_root: 'runs',
      parallel: 8,
      saturation_evals: 200,
      max_reserve_checks: 3,
      min_free_gib: 0,
      lanes: [{ host: 'bench', device: 0, slots: 1 }],
      commands: {
        train: stub,
        evaluate: stub,
        evaluate_ensemble: stub,
        split_generate: stub,
        split_carve: stub,
        teacher_scores: stub,
        package: stub,
      },
    }),
  );
  return { file, config: await loadLoopConfig(file) };
}

/** The ledger copy of a loop `size` evaluations in, and the rows history gains after it. */
export interface SyntheticCopy {
  /** Evaluations the synthetic ledger holds, the tail's included. */
  readonly evals: number;
  /** The rows in the copy: the ledger through `size` evaluations. */
  readonly copyRows: readonly LedgerRow[];
  /** The rows past the copy, which the keeper's steady passes append. */
  readonly tail: readonly LedgerRow[];
  /** The copy's rows folded: the loop's state. */
  readonly folded: LoopState;
  /** The state.json the copy's rows make (what the export must write). */
  readonly expectedState: StateJson;
  readonly copyBytes: number;
  /** Rows of the copy per row type. */
  readonly counts: Readonly<Record<string, number>>;
}

/** Build a synthetic ledger of `size` evaluations (and a tail), write its copy and state.json in the state dir. */
export async function writeSyntheticCopy(
  config: LoopConfig,
  size: number,
  log: (line: string) => void,
): Promise<SyntheticCopy> {
  const settings = foldSettingsOf(config);
  const made = await timed(() =>
    Promise.resolve(
      syntheticLedger({
        evals: size + TAIL_EVALS,
        seed: 17,
        stateDir: config.state_dir,
        runsRoot: config.runs_root,
        settings,
        baseSeed: config.base_seed,
      }),
    ),
  );
  const split = rowsThroughEvals(made.value.rows, size);
  const copyRows = made.value.rows.slice(0, split);
  const tail = made.value.rows.slice(split);
  const folded = foldRows(copyRows, settings);
  const expectedState = stateJson(folded, config.state_dir, updatedTime(copyRows));
  await appendLedgerRows(config.state_dir, copyRows);
  await writeStateCopy(config.state_dir, expectedState);
  const copyBytes = (await stat(path.join(config.state_dir, 'ledger.jsonl'))).size;
  const counts: Record<string, number> = {};
  for (const row of copyRows) counts[row.type] = (counts[row.type] ?? 0) + 1;
  log(
    `growth: ${size} evaluations: ${copyRows.length} rows (${(copyBytes / 2 ** 20).toFixed(1)} MiB) built in ${made.ms.toFixed(0)} ms`,
  );
  return { evals: made.value.evals, copyRows, tail, folded, expectedState, copyBytes, counts };
}
