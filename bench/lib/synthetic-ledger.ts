// A loop's ledger of any size, built as the loop builds it, for measuring what grows with it:
// generations, rounds of training runs with several checkpoint evaluations each, the champion and
// pareto_set rows those cause, reserve checks when the champion saturates, and package rows for
// every champion. Counts are drawn (seeded), but every row goes through the loop's own folds
// (src/ledger/report-fold.ts, loop-state.ts, packaging-fold.ts), so the state the rows fold to is
// the state.json the loop would write. Pure, no I/O.
import type { PackageChampion } from '../../src/activities/types.js';
import { evalReportPath } from '../../src/ledger/eval-row.js';
import { mergeByTime } from '../../src/ledger/ledger-lines.js';
import {
  generationRow,
  initialLoopState,
  recordRow,
  reserveDue,
  type FoldSettings,
  type LoopState,
} from '../../src/ledger/loop-state.js';
import { finishPackage, idlePackaging, requestPackage, type PackagingState } from '../../src/ledger/packaging-fold.js';
import { foldReserveReport, foldRunReport } from '../../src/ledger/report-fold.js';
import type { LedgerRow, PackageRow, RunRow } from '../../src/ledger/rows.js';
import { padGeneration, runIdFor } from '../../src/rules/ids.js';
import { trainingSeed } from '../../src/rules/seeds.js';
import type { EvalRow, HeldoutResult } from '../../src/rules/types.js';
import { seededRandom } from './durations.js';

export interface SyntheticLedgerOptions {
  /** Evaluation rows (test and reserve) to write: the ledger's size as the bench counts it. */
  readonly evals: number;
  readonly seed: number;
  readonly stateDir: string;
  readonly runsRoot: string;
  readonly settings: FoldSettings;
  readonly baseSeed: number;
  /** Candidates per round; each trains once a round. */
  readonly candidates?: number;
  /** Checkpoints each trained run scores on test. */
  readonly checkpoints?: number;
  /** When the loop started (epoch ms). */
  readonly start?: number;
}

export interface SyntheticLedger {
  /** In ledger order: the generation workflow's rows with package rows merged in by time. */
  readonly rows: LedgerRow[];
  /** The state the rows fold to (what the generation workflow would carry). */
  readonly state: LoopState;
  readonly evals: number;
  readonly counts: Readonly<Record<string, number>>;
}

/** A run's training takes about this long, and the loop finishes one run this often (8 lanes). */
const RUN_EVERY_MS = 90_000;
/** A package command takes this long. */
const PACKAGE_MS = 8 * 60_000;
const FAIL_COUNT = 400;
const PASS_COUNT = 1_600;

function result(fail2pass: number, pass2fail: number): HeldoutResult {
  const f2p = Math.max(0, Math.min(FAIL_COUNT, Math.round(fail2pass)));
  const p2f = Math.max(0, Math.min(PASS_COUNT, Math.round(pass2fail)));
  return {
    fail_to_pass_count: f2p,
    fail_count: FAIL_COUNT,
    fail_to_pass_rate: f2p / FAIL_COUNT,
    pass_to_fail_count: p2f,
    pass_correct_count: PASS_COUNT - p2f,
    pass_count: PASS_COUNT,
    pass_to_fail_rate: p2f / PASS_COUNT,
    macro_f1: 1 - (f2p / FAIL_COUNT + p2f / PASS_COUNT) / 2,
    s_f1: 1 - (f2p / FAIL_COUNT + p2f / PASS_COUNT) / 1.8,
  };
}

const iso = (ms: number): string => new Date(ms).toISOString();

/** Build a ledger of `options.evals` evaluation rows (at least; a run's evaluations are never split). */
export function syntheticLedger(options: SyntheticLedgerOptions): SyntheticLedger {
  const random = seededRandom(options.seed);
  const candidates = options.candidates ?? 10;
  const checkpoints = options.checkpoints ?? 3;
  const { settings, stateDir, runsRoot } = options;
  let clock = options.start ?? Date.UTC(2026, 0, 5);
  let state = initialLoopState();
  let packaging: PackagingState = idlePackaging;
  let packagingSince = 0;
  const rows: LedgerRow[] = [];
  const packageRows: PackageRow[] = [];
  const counts: Record<string, number> = {};
  let evals = 0;
  let round = 0;

  const add = (folded: readonly LedgerRow[]): void => {
    for (const row of folded) {
      rows.push(row);
      counts[row.type] = (counts[row.type] ?? 0) + 1;
      if (row.type === 'eval') evals += 1;
    }
  };
  const open = (reason: string): void => {
    const recorded = recordRow(state, generationRow(state, reason, options.baseSeed, iso(clock)), settings);
    state = recorded.state;
    add(recorded.rows);
    round = 0;
  };
  // Packaging runs one champion at a time; the newest queued one wins, as the workflow does.
  const settlePackaging = (now: number): void => {
    while (packaging.running && packagingSince + PACKAGE_MS <= now) {
      const champion = packaging.running;
      const started = packagingSince;
      const step = finishPackage(packaging, {
        launched: true,
        command: ['python3', 'scripts/package_champion.py', '--checkpoint', champion.checkpoint],
        pid: 4000 + Math.floor(random() * 60_000),
        log: `${stateDir}/logs/package-${champion.run_id}-${champion.checkpoint_name}.log`,
        started: iso(started),
        exitCode: 0,
        finished: iso(started + PACKAGE_MS),
      });
      packaging = step.state;
      packagingSince = started + PACKAGE_MS;
      packageRows.push(...step.rows);
    }
  };
  const package_ = (champions: readonly EvalRow[]): void => {
    for (const champion of champions) {
      settlePackaging(Date.parse(champion.finished));
      const wasIdle = packaging.running === null;
      const request: PackageChampion = {
        generation: champion.generation,
        run_id: champion.run_id,
        epoch: champion.epoch,
        checkpoint_name: champion.checkpoint_name,
        checkpoint: champion.checkpoint,
        config_path: champion.config_path,
        eval_json: champion.eval_json,
        requested: champion.finished,
      };
      const step = requestPackage(packaging, request);
      packaging = step.state;
      if (wasIdle) packagingSince = Date.parse(champion.finished);
      packageRows.push(...step.rows);
    }
  };

  open('initial');
  while (evals < options.evals) {
    round += 1;
    for (let c = 0; c < candidates && evals < options.evals; c += 1) {
      clock += RUN_EVERY_MS;
      const candidate = `cand${String(c).padStart(2, '0')}`;
      const runId = runIdFor(state.generation, round, candidate);
      const configPath = `${stateDir}/configs/gen-${padGeneration(state.generation)}/round-${String(round).padStart(4, '0')}/${candidate}.yaml`;
      const failed = random() < 0.02;
      const names = Array.from({ length: checkpoints }, (_, i) => `checkpoint-${String(i + 1).padStart(4, '0')}.pt`);
      const run: RunRow = {
        type: 'run',
        generation: state.generation,
        round,
        seed: trainingSeed(round),
        candidate,
        run_id: runId,
        config_path: configPath,
        config_sha256: Math.floor(random() * 2 ** 52)
          .toString(16)
          .padStart(64, '0'),
        status: failed ? 'train_failed' : 'trained',
        train_rc: failed ? 1 : 0,
        started: iso(clock - 10 * 60_000),
        finished: iso(clock),
        epochs_run: failed ? 0 : checkpoints,
        checkpoints: failed ? [] : names,
        error: failed ? 'trainer exited with code 1 (see the step log)' : null,
      };
      // Candidates differ in skill; checkpoints of one run are close to each other.
      const skill = 0.6 + 0.8 * random();
      const testEvals: EvalRow[] = failed
        ? []
        : names.map((name, i) => {
            const finished = clock + (i + 1) * 20_000;
            const ok = random() >= 0.01;
            return {
              type: 'eval',
              generation: state.generation,
              role: 'test',
              run_id: runId,
              candidate,
              round,
              checkpoint: `${runsRoot}/${runId}/${name}`,
              checkpoint_name: name,
              checkpoint_sha256: ok
                ? Math.floor(random() * 2 ** 52)
                    .toString(16)
                    .padStart(64, '0')
                : null,
              epoch: i + 1,
              config_path: configPath,
              status: ok ? 'ok' : 'failed',
              validation: ok
                ? {
                    epoch: i + 1,
                    fail_to_pass_count: Math.round(skill * 30 * random()),
                    pass_to_fail_count: Math.round(skill * 60 * random()),
                    macro_f1: 0.9,
                    gate_auc: 0.95,
                  }
                : null,
              result: ok ? result(skill * (20 + 30 * random()), skill * (40 + 60 * random())) : null,
              gate_auc: ok ? 0.9 + 0.09 * random() : null,
              gate_curve: ok
                ? [-1, -0.5, 0, 0.5, 1].map((threshold) => ({
                    threshold,
                    fail_to_pass: Math.round(40 * random()),
                    pass_to_fail: Math.round(80 * random()),
                  }))
                : null,
              reject_band: ok ? { low: -0.2, high: 0.3, chosen_on: 'validation' } : null,
              decided: null,
              eval_json: evalReportPath(stateDir, runId, name, 'test'),
              finished: iso(finished),
            };
          });
      const folded = foldRunReport(state, { run, evals: testEvals }, settings);
      state = folded.state;
      add(folded.rows);
      package_(folded.newChampions);
      if (reserveDue(state, settings) && state.champion && evals < options.evals) {
        const champion = state.champion;
        clock += RUN_EVERY_MS;
        const test = champion.result as HeldoutResult;
        // The reserve set mostly confirms the champion; now and then it finds it overfitted.
        const worse = random() < 0.3 ? 2 : 1;
        const reserve: EvalRow = {
          ...champion,
          role: 'reserve',
          result: result(
            test.fail_to_pass_count * worse * (0.8 + 0.4 * random()),
            test.pass_to_fail_count * worse * (0.8 + 0.4 * random()),
          ),
          eval_json: evalReportPath(stateDir, champion.run_id, champion.checkpoint_name, 'reserve'),
          finished: iso(clock),
        };
        const checked = foldReserveReport(state, { champion, testEvals: state.testEvals, reserve }, settings);
        state = checked.state;
        add(checked.rows);
        if (state.advanceReason !== null) {
          clock += 60_000;
          open(state.advanceReason);
          break;
        }
      }
    }
  }
  settlePackaging(clock);
  const merged = mergeByTime(rows, packageRows);
  counts.package = packageRows.length;
  return { rows: merged, state, evals, counts };
}

/** Where the ledger has `evals` evaluation rows: the index after the row that makes them so many. */
export function rowsThroughEvals(rows: readonly LedgerRow[], evals: number): number {
  let seen = 0;
  for (let index = 0; index < rows.length; index += 1) {
    if (rows[index]?.type === 'eval') seen += 1;
    if (seen >= evals) return index + 1;
  }
  return rows.length;
}
