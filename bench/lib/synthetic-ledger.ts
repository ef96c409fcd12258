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

const sha256 = (random: () => number): string =>
  Math.floor(random() * 2 ** 52)
    .toString(16)
    .padStart(64, '0');

// Packaging runs one champion at a time; the newest queued one wins, as the workflow does.
class SyntheticPackaging {
  readonly rows: PackageRow[] = [];
  private state: PackagingState = idlePackaging;
  /** When the running package command started. */
  private since = 0;

  constructor(
    private readonly random: () => number,
    private readonly stateDir: string,
  ) {}

  /** Finish every package command done by `now`, and start the queued one after each. */
  settle(now: number): void {
    while (this.state.running && this.since + PACKAGE_MS <= now) {
      const champion = this.state.running;
      const started = this.since;
      const step = finishPackage(this.state, {
        launched: true,
        command: ['python3', 'scripts/package_champion.py', '--checkpoint', champion.checkpoint],
        pid: 4000 + Math.floor(this.random() * 60_000),
        log: `${this.stateDir}/logs/package-${champion.run_id}-${champion.checkpoint_name}.log`,
        started: iso(started),
        exitCode: 0,
        finished: iso(started + PACKAGE_MS),
      });
      this.state = step.state;
      this.since = started + PACKAGE_MS;
      this.rows.push(...step.rows);
    }
  }

  /** Ask for each new champion's package when it became champion. */
  request(champions: readonly EvalRow[]): void {
    for (const champion of champions) {
      this.settle(Date.parse(champion.finished));
      const wasIdle = this.state.running === null;
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
      const step = requestPackage(this.state, request);
      this.state = step.state;
      if (wasIdle) this.since = Date.parse(champion.finished);
      this.rows.push(...step.rows);
    }
  }
}

/** One candidate's training run of a round: who, where, and when it finished. */
interface RunPlan {
  readonly generation: number;
  readonly round: number;
  readonly candidate: string;
  readonly runId: string;
  readonly configPath: string;
  /** When training finished (epoch ms). */
  readonly finishedMs: number;
  readonly failed: boolean;
  /** Epochs it trains, a checkpoint each. */
  readonly epochs: number;
  /** Its checkpoints' file names. */
  readonly names: readonly string[];
}

function runRow(plan: RunPlan, random: () => number): RunRow {
  const { failed, finishedMs } = plan;
  return {
    type: 'run',
    generation: plan.generation,
    round: plan.round,
    seed: trainingSeed(plan.round),
    candidate: plan.candidate,
    run_id: plan.runId,
    config_path: plan.configPath,
    config_sha256: sha256(random),
    status: failed ? 'train_failed' : 'trained',
    train_rc: failed ? 1 : 0,
    started: iso(finishedMs - 10 * 60_000),
    finished: iso(finishedMs),
    epochs_run: failed ? 0 : plan.epochs,
    checkpoints: failed ? [] : [...plan.names],
    error: failed ? 'trainer exited with code 1 (see the step log)' : null,
  };
}

/** The test evaluation of checkpoint `index` (0-based) of a run whose candidate has `skill`. */
function testEval(plan: RunPlan, index: number, skill: number, paths: LedgerPaths, random: () => number): EvalRow {
  const name = plan.names[index] as string;
  const finished = plan.finishedMs + (index + 1) * 20_000;
  const ok = random() >= 0.01;
  return {
    type: 'eval',
    generation: plan.generation,
    role: 'test',
    run_id: plan.runId,
    candidate: plan.candidate,
    round: plan.round,
    checkpoint: `${paths.runsRoot}/${plan.runId}/${name}`,
    checkpoint_name: name,
    checkpoint_sha256: ok ? sha256(random) : null,
    epoch: index + 1,
    config_path: plan.configPath,
    status: ok ? 'ok' : 'failed',
    validation: ok
      ? {
          epoch: index + 1,
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
    eval_json: evalReportPath(paths.stateDir, plan.runId, name, 'test'),
    finished: iso(finished),
  };
}

/** The champion's evaluation on the reserve set, finished at `finishedMs`. */
function reserveEval(champion: EvalRow, finishedMs: number, stateDir: string, random: () => number): EvalRow {
  const test = champion.result as HeldoutResult;
  // The reserve set mostly confirms the champion; now and then it finds it overfitted.
  const worse = random() < 0.3 ? 2 : 1;
  return {
    ...champion,
    role: 'reserve',
    result: result(
      test.fail_to_pass_count * worse * (0.8 + 0.4 * random()),
      test.pass_to_fail_count * worse * (0.8 + 0.4 * random()),
    ),
    eval_json: evalReportPath(stateDir, champion.run_id, champion.checkpoint_name, 'reserve'),
    finished: iso(finishedMs),
  };
}

type LedgerPaths = Pick<SyntheticLedgerOptions, 'stateDir' | 'runsRoot'>;

/** The loop's rows as it writes them, folded one report at a time. */
class SyntheticLoop {
  private readonly random: () => number;
  private readonly candidates: number;
  private readonly checkpoints: number;
  private readonly packaging: SyntheticPackaging;
  private clock: number;
  private state = initialLoopState();
  private readonly rows: LedgerRow[] = [];
  private readonly counts: Record<string, number> = {};
  private evals = 0;
  private round = 0;

  constructor(private readonly options: SyntheticLedgerOptions) {
    this.random = seededRandom(options.seed);
    this.candidates = options.candidates ?? 10;
    this.checkpoints = options.checkpoints ?? 3;
    this.packaging = new SyntheticPackaging(this.random, options.stateDir);
    this.clock = options.start ?? Date.UTC(2026, 0, 5);
  }

  build(): SyntheticLedger {
    this.openGeneration('initial');
    while (this.evals < this.options.evals) this.playRound();
    this.packaging.settle(this.clock);
    const merged = mergeByTime(this.rows, this.packaging.rows);
    this.counts.package = this.packaging.rows.length;
    return { rows: merged, state: this.state, evals: this.evals, counts: this.counts };
  }

  private add(folded: readonly LedgerRow[]): void {
    for (const row of folded) {
      this.rows.push(row);
      this.counts[row.type] = (this.counts[row.type] ?? 0) + 1;
      if (row.type === 'eval') this.evals += 1;
    }
  }

  private openGeneration(reason: string): void {
    const { settings, baseSeed } = this.options;
    const recorded = recordRow(this.state, generationRow(this.state, reason, baseSeed, iso(this.clock)), settings);
    this.state = recorded.state;
    this.add(recorded.rows);
    this.round = 0;
  }

  /** Each candidate trains once, a reserve check after any run that saturates the champion; ends early on a new generation. */
  private playRound(): void {
    this.round += 1;
    for (let c = 0; c < this.candidates && this.evals < this.options.evals; c += 1) {
      this.clock += RUN_EVERY_MS;
      this.trainCandidate(c);
      const champion = this.state.champion;
      if (reserveDue(this.state, this.options.settings) && champion && this.evals < this.options.evals) {
        if (this.checkReserve(champion)) return;
      }
    }
  }

  private planRun(c: number): RunPlan {
    const { generation } = this.state;
    const candidate = `cand${String(c).padStart(2, '0')}`;
    const runId = runIdFor(generation, this.round, candidate);
    const configPath = `${this.options.stateDir}/configs/gen-${padGeneration(generation)}/round-${String(this.round).padStart(4, '0')}/${candidate}.yaml`;
    const failed = this.random() < 0.02;
    const names = Array.from({ length: this.checkpoints }, (_, i) => `checkpoint-${String(i + 1).padStart(4, '0')}.pt`);
    const epochs = this.checkpoints;
    return {
      generation,
      round: this.round,
      candidate,
      runId,
      configPath,
      finishedMs: this.clock,
      failed,
      epochs,
      names,
    };
  }

  /** Candidate `c` trains and its checkpoints are scored on test; the report folds, new champions get packaged. */
  private trainCandidate(c: number): void {
    const plan = this.planRun(c);
    const run = runRow(plan, this.random);
    // Candidates differ in skill; checkpoints of one run are close to each other.
    const skill = 0.6 + 0.8 * this.random();
    const testEvals = plan.failed
      ? []
      : plan.names.map((_, index) => testEval(plan, index, skill, this.options, this.random));
    const folded = foldRunReport(this.state, { run, evals: testEvals }, this.options.settings);
    this.state = folded.state;
    this.add(folded.rows);
    this.packaging.request(folded.newChampions);
  }

  /** The champion is checked on the reserve set; true when that opened a new generation. */
  private checkReserve(champion: EvalRow): boolean {
    this.clock += RUN_EVERY_MS;
    const reserve = reserveEval(champion, this.clock, this.options.stateDir, this.random);
    const report = { champion, testEvals: this.state.testEvals, reserve };
    const checked = foldReserveReport(this.state, report, this.options.settings);
    this.state = checked.state;
    this.add(checked.rows);
    if (this.state.advanceReason === null) return false;
    this.clock += 60_000;
    this.openGeneration(this.state.advanceReason);
    return true;
  }
}

/** Build a ledger of `options.evals` evaluation rows (at least; a run's evaluations are never split). */
export function syntheticLedger(options: SyntheticLedgerOptions): SyntheticLedger {
  return new SyntheticLoop(options).build();
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
