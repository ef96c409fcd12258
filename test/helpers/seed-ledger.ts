// Seed-format ledgers for tests, written from docs/ledger.md and src/ledger/rows.ts: N generations
// of rows of every kind (generation; run in every status, ensembles too; test and reserve evals,
// ok and failed, with and without `decided`; champion; pareto_set; reserve_check pass, fail, error
// and stale; teacher ok and failed; package launched, finished, dropped, launch_failed), and what
// they fold to, worked out here on their own (docs/behaviour.md, sections 2, 5 and 6) so that a
// test compares the loop's fold with an independent one.
import type {
  GenerationRow,
  LedgerRow,
  PackageRow,
  ReserveCheckRow,
  RunRow,
  RunStatus,
  TeacherRow,
} from '../../src/ledger/rows.js';
import type { Decided, EvalRow, EvalSummary, HeldoutResult } from '../../src/rules/types.js';

export interface SeedLedgerOptions {
  readonly generations: number;
  /** Rounds of the last generation; earlier ones run until their reserve checks end them (at least this many). Default 3. */
  readonly rounds?: number;
  readonly candidates?: readonly string[];
  /** Champions compared on `decided` (loop.yaml's band_decisions); the very first eval predates bands (no `decided`). */
  readonly bandDecisions?: boolean;
  /** Drives the counts. */
  readonly seed?: number;
  readonly stateDir?: string;
  readonly runsRoot?: string;
  readonly baseSeed?: number;
  /** Test evals between reserve checks (loop.yaml's saturation_evals). Default 4. */
  readonly saturationEvals?: number;
  /** loop.yaml's max_reserve_checks; at least 2. Default 2. */
  readonly maxReserveChecks?: number;
  /** A teacher build after this round of every generation (0: none). */
  readonly teacherAfterRound?: number;
  /** The last generation's last round leaves one checkpoint of a trained run unscored. Default true. */
  readonly unscoredInLast?: boolean;
  /** What became of the current champion's packaging: nothing yet (default), launched, or a launch that failed. */
  readonly lastChampionPackage?: 'none' | 'launched' | 'launch_failed';
  readonly start?: string;
}

/** What the rows fold to, and what a loop carrying them on must do. */
interface SeedExpectation {
  readonly generation: number;
  /** `run_id/checkpoint_name` */
  readonly champion: string | null;
  readonly front: string[];
  readonly testEvals: number;
  readonly testsSinceReserveCheck: number;
  readonly reserveChecks: number;
  readonly advanceReason: string | null;
  /** The last round of the current generation with a run row. */
  readonly lastRound: number;
  /** Trained runs of the current generation with checkpoints no test eval row has. */
  readonly unscored: Record<string, string[]>;
  /** `run_id/checkpoint_name` of champions with a `launched` or `dropped` row. */
  readonly packaged: string[];
  /** Whether a teacher row of the current generation exists. */
  readonly teacherBuilt: boolean;
  /** Trained runs of the current generation's rounds <= teacherAfterRound. */
  readonly teacherMembers: string[];
  /** Ordinary runs of the current generation's rounds <= teacherAfterRound. */
  readonly teacherPlanned: number;
  /** Every run id with a run row. */
  readonly runIds: string[];
}

export interface SeedLedger {
  readonly rows: LedgerRow[];
  /** ledger.jsonl as the seed writes it: one row a line, a newline after each. */
  readonly text: string;
  readonly expected: SeedExpectation;
}

/** Statuses of ordinary runs, in turn: every status turns up within a few rounds. */
const STATUS_CYCLE: readonly RunStatus[] = [
  'trained',
  'trained',
  'no_eligible_checkpoint',
  'trained',
  'train_failed',
  'trained',
  'trained',
  'stale_run_dir',
];
/** Every seventh scored checkpoint has no usable report. */
const FAILED_EVERY = 7;
/** How a champion's packaging went, in turn. */
const PACKAGE_CYCLE = ['finished', 'dropped', 'finished', 'launch_failed', 'failed'] as const;

const pad = (value: number, width: number) => String(value).padStart(width, '0');

function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** a dominates b: neither count larger, one smaller (docs/behaviour.md, 2.1). */
function dominates(
  a: { fail_to_pass_count: number; pass_to_fail_count: number },
  b: { fail_to_pass_count: number; pass_to_fail_count: number },
): boolean {
  return (
    a.fail_to_pass_count <= b.fail_to_pass_count &&
    a.pass_to_fail_count <= b.pass_to_fail_count &&
    (a.fail_to_pass_count < b.fail_to_pass_count || a.pass_to_fail_count < b.pass_to_fail_count)
  );
}

const key = (row: { run_id: string; checkpoint_name: string }) => `${row.run_id}/${row.checkpoint_name}`;

function summary(row: EvalRow): EvalSummary {
  const { run_id, candidate, epoch, checkpoint_name, checkpoint, config_path, eval_json, result } = row;
  return { run_id, candidate, epoch, checkpoint_name, checkpoint, config_path, eval_json, result };
}

export function seedLedger(options: SeedLedgerOptions): SeedLedger {
  const generations = options.generations;
  const minRounds = options.rounds ?? 3;
  const candidates = options.candidates ?? ['base', 'wide', 'narrow'];
  const band = options.bandDecisions ?? false;
  const stateDir = options.stateDir ?? 'artifacts/champion-loop';
  const runsRoot = options.runsRoot ?? 'artifacts/training-runs';
  const baseSeed = options.baseSeed ?? 20261200;
  const saturation = options.saturationEvals ?? 4;
  const maxChecks = Math.max(2, options.maxReserveChecks ?? 2);
  const teacherAfter = options.teacherAfterRound ?? 0;
  const unscoredInLast = options.unscoredInLast ?? true;
  const lastPackage = options.lastChampionPackage ?? 'none';
  const rand = random(options.seed ?? 1);
  const between = (low: number, high: number) => low + Math.floor(rand() * (high - low + 1));
  let clock = Date.parse(options.start ?? '2026-01-05T08:00:00.000Z');
  const tick = () => new Date((clock += 1000 + between(0, 60_000))).toISOString();
  const sha = () => Array.from({ length: 64 }, () => between(0, 15).toString(16)).join('');

  const rows: LedgerRow[] = [];
  let statusTurn = 0;
  let evalTurn = 0;
  let packageTurn = 0;
  let pid = 4000;
  const packaged = new Set<string>();
  const runIds: string[] = [];

  // The fold, kept here from the spec.
  let champion: EvalRow | null = null;
  let front: EvalRow[] = [];
  let testEvals = 0;
  let checked = 0;
  let reserveChecks = 0;
  let advanceReason: string | null = null;
  let reserveScored = new Set<string>();
  let previous: { champion: EvalRow | null; front: EvalRow[]; reason: string } = {
    champion: null,
    front: [],
    reason: 'initial',
  };
  let unscored: Record<string, string[]> = {};
  let lastRound = 0;
  let teacherBuilt = false;
  let teacherMembers: string[] = [];
  let teacherPlanned = 0;
  // Champions whose package rows wait for the next champion (or the generation's end).
  let packagePending: EvalRow | null = null;

  const compared = (row: EvalRow) => (band ? row.decided : row.result);

  function packageRows(row: EvalRow, outcome: (typeof PACKAGE_CYCLE)[number] | 'launched'): void {
    const base = {
      type: 'package' as const,
      generation: row.generation,
      run_id: row.run_id,
      epoch: row.epoch,
      checkpoint_name: row.checkpoint_name,
    };
    if (outcome === 'dropped') {
      rows.push({ ...base, event: 'dropped', time: tick() } satisfies PackageRow);
      packaged.add(key(row));
      return;
    }
    if (outcome === 'launch_failed') {
      rows.push({
        ...base,
        event: 'launch_failed',
        time: tick(),
        error: 'package command not found: python3',
      } satisfies PackageRow);
      return;
    }
    const command = [
      'python3',
      'scripts/package_champion.py',
      '--checkpoint',
      row.checkpoint,
      '--config',
      row.config_path,
      '--test-eval',
      row.eval_json,
      '--generation',
      String(row.generation),
      '--state-dir',
      stateDir,
    ];
    const log = `${stateDir}/logs/package-${row.run_id}-${pad(row.epoch ?? 0, 4)}.log`;
    rows.push({ ...base, event: 'launched', time: tick(), command, pid: (pid += 7), log } satisfies PackageRow);
    packaged.add(key(row));
    if (outcome !== 'launched')
      rows.push({
        ...base,
        event: 'finished',
        time: tick(),
        exit_code: outcome === 'finished' ? 0 : 1,
      } satisfies PackageRow);
  }

  function flushPackage(): void {
    if (packagePending) packageRows(packagePending, PACKAGE_CYCLE[packageTurn++ % PACKAGE_CYCLE.length] ?? 'finished');
    packagePending = null;
  }

  function counts(quality: number, fails: number, passes: number): HeldoutResult {
    const f2p = Math.max(1, Math.round(fails * (0.35 - 0.3 * quality) + between(-3, 3)));
    const p2f = Math.max(1, Math.round(passes * (0.2 - 0.15 * quality) + between(-4, 4)));
    return {
      fail_to_pass_count: f2p,
      fail_count: fails,
      fail_to_pass_rate: f2p / fails,
      pass_to_fail_count: p2f,
      pass_correct_count: passes - p2f,
      pass_count: passes,
      pass_to_fail_rate: p2f / passes,
      macro_f1: Number((0.95 - (f2p / fails + p2f / passes) / 2).toFixed(4)),
      s_f1: Number((0.9 - f2p / fails).toFixed(4)),
    };
  }

  function decidedOf(result: HeldoutResult): Decided {
    const rejected = between(2, 12);
    const f2p = Math.max(0, result.fail_to_pass_count - between(0, 3));
    const p2f = Math.max(0, result.pass_to_fail_count - between(0, 4));
    return {
      fail_to_pass_count: f2p,
      fail_count: result.fail_count,
      pass_to_fail_count: p2f,
      pass_count: result.pass_count,
      rejected_total: rejected,
    };
  }

  /** Fold one eval row the way the spec says, recording the champion and pareto_set rows it causes. */
  function record(row: EvalRow, generation: number): void {
    rows.push(row);
    const block = compared(row);
    if (row.role !== 'test' || row.status !== 'ok' || row.generation !== generation || !block) return;
    testEvals += 1;
    const before = champion;
    const frontBefore = front.map(key).join(',');
    if (!front.some((member) => dominates(compared(member) as Decided, block)))
      front = [...front.filter((member) => !dominates(block, compared(member) as Decided)), row];
    if (band) {
      const order = (r: EvalRow) => {
        const b = compared(r) as Decided;
        return [b.fail_to_pass_count, b.pass_to_fail_count, Number(b.rejected_total ?? 0)];
      };
      let best: EvalRow | null = null;
      for (const member of front) {
        if (best === null) best = member;
        else {
          const [a, b] = [order(member), order(best)];
          const cmp =
            (a[0] as number) - (b[0] as number) ||
            (a[1] as number) - (b[1] as number) ||
            (a[2] as number) - (b[2] as number);
          if (cmp < 0 || (cmp === 0 && member.finished < best.finished)) best = member;
        }
      }
      champion = best;
    } else if (champion === null || dominates(block, compared(champion) as Decided)) champion = row;
    if (champion !== before && champion !== null) {
      rows.push({
        type: 'champion',
        generation,
        previous: before ? summary(before) : null,
        champion: summary(champion),
        finished: row.finished,
      });
      flushPackage();
      packagePending = champion;
    }
    if (front.map(key).join(',') !== frontBefore)
      rows.push({ type: 'pareto_set', generation, members: front.map(summary), finished: row.finished });
  }

  function evalRow(
    run: RunRow,
    name: string,
    role: 'test' | 'reserve',
    quality: number,
    options: { failed?: boolean; worse?: boolean } = {},
  ): EvalRow {
    const ensemble = run.status === 'ensemble';
    const stem = name.replace(/\.[^.]*$/, '');
    const result = options.failed ? null : counts(options.worse ? quality - 0.6 : quality, 60, 240);
    // In band mode only the very first eval predates the bands; otherwise every other report has them.
    const withDecided = result !== null && (band ? evalTurn > 1 : evalTurn % 2 === 0);
    return {
      type: 'eval',
      generation: run.generation,
      role,
      run_id: run.run_id,
      candidate: run.candidate,
      round: run.round,
      checkpoint: ensemble ? run.config_path : `${runsRoot}/${run.run_id}/${name}`,
      checkpoint_name: name,
      checkpoint_sha256: result ? sha() : null,
      epoch: ensemble ? null : Number(/-(\d+)$/.exec(stem)?.[1]),
      config_path: run.config_path,
      status: result ? 'ok' : 'failed',
      validation:
        result && !ensemble
          ? {
              epoch: Number(/-(\d+)$/.exec(stem)?.[1]),
              fail_to_pass_count: between(2, 9),
              pass_to_fail_count: between(3, 12),
            }
          : null,
      result,
      gate_auc: result ? Number((0.9 + rand() * 0.09).toFixed(4)) : null,
      gate_curve: null,
      reject_band: withDecided ? { low: -0.2, high: 0.15, chosen_on: 'validation' } : null,
      decided: withDecided && result ? decidedOf(result) : null,
      eval_json: `${stateDir}/evals/${run.run_id}/${stem}.${role}.json`,
      finished: tick(),
      ...(ensemble ? { manifest: run.config_path, members: run.members ?? [] } : {}),
    };
  }

  /** The reserve check of the current champion with the given outcome (docs/behaviour.md, section 6). */
  function reserveCheck(generation: number, outcome: 'pass' | 'fail' | 'error' | 'stale', stale: EvalRow | null): void {
    const checkedRow = outcome === 'stale' && stale ? stale : (champion as EvalRow);
    const run = {
      type: 'run',
      generation,
      round: checkedRow.round,
      run_id: checkedRow.run_id,
      candidate: checkedRow.candidate,
      config_path: checkedRow.config_path,
      status: checkedRow.manifest ? 'ensemble' : 'trained',
      members: checkedRow.members,
    } as RunRow;
    const reserveKey = key(checkedRow);
    let reserve: EvalRow | null = null;
    if (!reserveScored.has(reserveKey)) {
      reserve = evalRow(run, checkedRow.checkpoint_name, 'reserve', 0.7, {
        failed: outcome === 'error',
        worse: outcome === 'fail',
      });
      reserveScored.add(reserveKey);
      record(reserve, generation);
    }
    const ok = outcome !== 'error';
    const reserveResult = ok ? (reserve?.result ?? counts(outcome === 'fail' ? 0.1 : 0.7, 60, 240)) : null;
    const row: ReserveCheckRow = {
      type: 'reserve_check',
      generation,
      run_id: checkedRow.run_id,
      candidate: checkedRow.candidate,
      checkpoint_name: checkedRow.checkpoint_name,
      epoch: checkedRow.epoch,
      test_evals: testEvals,
      status: ok ? 'ok' : 'failed',
      verdict: outcome === 'error' ? 'error' : outcome === 'fail' ? 'fail' : 'pass',
      test: checkedRow.result,
      reserve: reserveResult,
      test_decided: checkedRow.decided,
      reserve_decided: ok && reserveResult ? decidedOf(reserveResult) : null,
      compared: band ? 'decided' : 'result',
      eval_json: `${stateDir}/evals/${checkedRow.run_id}/${checkedRow.checkpoint_name.replace(/\.[^.]*$/, '')}.reserve.json`,
      finished: tick(),
      ...(ok
        ? {
            f2p_z: outcome === 'fail' ? 2.84 : 0.41,
            f2p_p: outcome === 'fail' ? 0.0022 : 0.34,
            p2f_z: 0.33,
            p2f_p: 0.36,
          }
        : {}),
      stale_champion: outcome === 'stale',
    };
    rows.push(row);
    if (outcome === 'stale') return;
    checked = testEvals;
    if (!ok) return;
    reserveChecks += 1;
    if (outcome === 'fail') advanceReason = 'reserve_failed';
    else if (reserveChecks >= maxChecks) advanceReason = 'max_reserve_checks';
  }

  for (let generation = 1; generation <= generations; generation += 1) {
    const last = generation === generations;
    const opening: GenerationRow = {
      type: 'generation',
      event: generation === 1 ? 'start' : 'advance',
      generation,
      reason: previous.reason,
      split_seed: baseSeed + generation,
      previous_champion: previous.champion ? summary(previous.champion) : null,
      previous_pareto_set: previous.front.map(summary),
      started: tick(),
    };
    rows.push(opening);
    champion = null;
    front = [];
    testEvals = 0;
    checked = 0;
    reserveChecks = 0;
    advanceReason = null;
    reserveScored = new Set();
    unscored = {};
    lastRound = 0;
    teacherBuilt = false;
    teacherMembers = [];
    teacherPlanned = 0;
    // Earlier generations end on a failed verdict or on max checks (in turn); the last one goes on.
    const outcomes: ('pass' | 'fail' | 'error' | 'stale')[] = last
      ? ['error', 'pass']
      : generation % 2 === 1
        ? ['stale', 'error', 'pass', 'fail']
        : Array.from({ length: maxChecks }, () => 'pass' as const);
    let formerChampion: EvalRow | null = null;
    const trainedSoFar: RunRow[] = [];
    for (let round = 1; last ? round <= minRounds : round <= minRounds || advanceReason === null; round += 1) {
      lastRound = round;
      for (const [index, candidate] of candidates.entries()) {
        const lastRun = last && round === minRounds && index === 0;
        const status: RunStatus = lastRun ? 'trained' : (STATUS_CYCLE[statusTurn++ % STATUS_CYCLE.length] ?? 'trained');
        const runId = `champ-g${pad(generation, 3)}-r${pad(round, 4)}-${candidate}`;
        const started = tick();
        const epochs =
          status === 'trained' ? between(2, 4) : status === 'stale_run_dir' ? null : status === 'train_failed' ? 1 : 3;
        const checkpoints =
          status === 'trained'
            ? (lastRun ? [1, 2] : between(0, 1) === 0 ? [epochs as number] : [1, epochs as number]).map(
                (epoch) => `checkpoint-${pad(epoch, 4)}.pt`,
              )
            : [];
        const run: RunRow = {
          type: 'run',
          generation,
          round,
          seed: 20260928 + round,
          candidate,
          run_id: runId,
          config_path: `${stateDir}/configs/gen-${pad(generation, 3)}/round-${pad(round, 4)}/${candidate}.yaml`,
          config_sha256: sha(),
          status,
          train_rc:
            status === 'trained' ? 0 : status === 'no_eligible_checkpoint' ? 1 : status === 'train_failed' ? -9 : null,
          started,
          finished: status === 'stale_run_dir' ? started : tick(),
          epochs_run: epochs,
          checkpoints: [...new Set(checkpoints)],
          error:
            status === 'train_failed' ? `trainer ended with signal 9; see ${stateDir}/logs/${runId}.train.log` : null,
        };
        rows.push(run);
        runIds.push(runId);
        if (round <= teacherAfter) {
          teacherPlanned += 1;
          if (status === 'trained') teacherMembers.push(runId);
        }
        if (status !== 'trained') continue;
        trainedSoFar.push(run);
        const quality = 0.3 + 0.6 * rand();
        for (const [position, name] of run.checkpoints.entries()) {
          if (lastRun && unscoredInLast && position === run.checkpoints.length - 1) {
            unscored[runId] = [name];
            continue;
          }
          const failed = (evalTurn += 1) % FAILED_EVERY === 0;
          const countedBefore = testEvals;
          const championBefore: EvalRow | null = champion;
          record(evalRow(run, name, 'test', quality, { failed }), generation);
          if (champion !== championBefore && championBefore !== null) formerChampion = championBefore;
          if (
            testEvals === countedBefore ||
            advanceReason !== null ||
            champion === null ||
            testEvals - checked < saturation
          )
            continue;
          let outcome = outcomes.shift();
          // A stale check is one of a champion that was replaced while it ran (none replaced yet: no stale check).
          if (outcome === 'stale') {
            if (formerChampion !== null) reserveCheck(generation, 'stale', formerChampion);
            outcome = outcomes.shift();
          }
          if (outcome !== undefined) reserveCheck(generation, outcome, null);
        }
      }
      if (round === 2) {
        // The all-selected-checkpoints ensemble after round 2, scored like any run.
        const members = trainedSoFar.map((run) => ({
          run_id: run.run_id,
          checkpoint_name: run.checkpoints.at(-1),
          config: run.config_path,
          checkpoint: `${runsRoot}/${run.run_id}/${run.checkpoints.at(-1)}`,
          validation_gate_auc: 0.93,
          validation_fail_to_pass: 5,
        }));
        if (members.length > 0)
          recordEnsemble(
            generation,
            round,
            `ens-g${pad(generation, 3)}-r${pad(round, 4)}-all`,
            'ensemble_round_members',
            `round-${pad(round, 4)}-all.json`,
            members,
          );
      }
      if (round === teacherAfter) {
        const status = generation % 3 === 2 ? 'failed' : 'ok';
        const members = trainedSoFar
          .filter((run) => run.round <= teacherAfter)
          .map((run) => ({ run_id: run.run_id, checkpoint_name: run.checkpoints.at(-1) as string }));
        const teacher: TeacherRow = {
          type: 'teacher',
          generation,
          status,
          path: `artifacts/teachers/gen-${pad(generation, 3)}/insample.jsonl`,
          ...(status === 'ok' ? { sha256: sha() } : {}),
          members,
          started: tick(),
          finished: tick(),
        };
        rows.push(teacher);
        teacherBuilt = true;
        if (status === 'ok' && members.length > 0) {
          recordEnsemble(
            generation,
            teacherAfter,
            `ens-g${pad(generation, 3)}-teacher`,
            'ensemble_teacher_members',
            'teacher-members.json',
            members.map((member) => ({
              config: `${stateDir}/configs/${member.run_id}.yaml`,
              checkpoint: `${runsRoot}/${member.run_id}/${member.checkpoint_name}`,
            })),
          );
        }
      }
    }
    if (!last) {
      flushPackage();
      previous = { champion, front, reason: advanceReason ?? 'max_reserve_checks' };
    }
  }
  if (packagePending !== null && lastPackage !== 'none') packageRows(packagePending, lastPackage);

  function recordEnsemble(
    generation: number,
    round: number,
    runId: string,
    candidate: string,
    manifestName: string,
    members: readonly unknown[],
  ): void {
    const run: RunRow = {
      type: 'run',
      generation,
      round,
      seed: null,
      candidate,
      run_id: runId,
      config_path: `${stateDir}/ensembles/gen-${pad(generation, 3)}/${manifestName}`,
      config_sha256: sha(),
      status: 'ensemble',
      train_rc: null,
      started: tick(),
      finished: tick(),
      epochs_run: null,
      checkpoints: [manifestName],
      error: null,
      members,
    };
    rows.push(run);
    runIds.push(runId);
    record(evalRow(run, manifestName, 'test', 0.8), generation);
  }

  return {
    rows,
    text: rows.map((row) => `${JSON.stringify(row)}\n`).join(''),
    expected: {
      generation: generations,
      champion: champion ? key(champion) : null,
      front: front.map(key),
      testEvals,
      testsSinceReserveCheck: testEvals - checked,
      reserveChecks,
      advanceReason,
      lastRound,
      unscored,
      packaged: [...packaged],
      teacherBuilt,
      teacherMembers,
      teacherPlanned,
      runIds,
    },
  };
}
