// Where a loop goes on from when all that is left of it is its ledger (the copy in its state dir,
// or a seed loop's): the same generation, champion, front and reserve checks, the runs of the
// generation that were trained but not fully scored scored, its teacher plan, and a champion
// never packaged packaged.
import type { LoopConfig } from '../config/loop-config.js';
import { foldRows } from '../ledger/from-ledger.js';
import { foldSettingsOf } from '../ledger/loop-state.js';
import type { LedgerRow, RunRow, TeacherRow } from '../ledger/rows.js';
import { ROUND_ENSEMBLE_FROM, ROUND_ENSEMBLE_MAX } from '../rules/constants.js';
import { ensembleRunId, roundEnsembleRunId } from '../rules/ids.js';
import { rankMembers, type EnsembleMember, type RoundEnsembleState } from '../workflows/round-ensembles.js';
import { firstCarry, type GenerationCarry } from '../workflows/generation/carry.js';
import type { RunJob } from '../workflows/generation/jobs.js';
import { packageChampionOf } from '../workflows/generation/state.js';
import { emptyTeacherPlan, type TeacherPlan } from '../workflows/teacher-plan.js';

/** Checkpoints of a run that have a test eval row. */
function scoredCheckpoints(rows: readonly LedgerRow[], runId: string): Set<string> {
  return new Set(
    rows
      .filter((row) => row.type === 'eval' && row.role === 'test' && row.run_id === runId)
      .map((row) => (row.type === 'eval' ? row.checkpoint_name : '')),
  );
}

/** A trained (or ensemble) run with checkpoints left to score: an evaluation-only job; its run row is in the ledger already. */
function scoringJob(run: RunRow, unscored: string[]): RunJob {
  return {
    kind: 'run',
    jobId: run.run_id,
    generation: run.generation,
    round: run.round,
    // An ensemble's job is named after its run, as the generation names it (ensembleJob).
    candidate: { name: run.status === 'ensemble' ? run.run_id : run.candidate, base_config: '', overrides: {} },
    attempt: 1,
    run,
    unscored,
    preferredLane: null,
  };
}

/**
 * The generation's teacher plan from its rows (docs/behaviour.md, section 7): the runs of rounds
 * up to `teacher_after_round` in the ledger are final (each has its row), the trained ones are the
 * members, and a `teacher` row of the generation means the build was offered already (a resumed
 * run offers a failed one once more, when the teacher file is missing). A build that succeeded and whose member ensemble has no run row yet leaves that
 * ensemble due. Students cannot be told from rows: every run counts as ordinary, which is what
 * the seed plans before its teacher exists (students wait for the teacher file).
 */
export function teacherFromLedger(
  rows: readonly LedgerRow[],
  generation: number,
  config: Pick<LoopConfig, 'teacher_after_round' | 'runs_root'>,
): Pick<GenerationCarry, 'teacher' | 'teacherEnsemble'> {
  const afterRound = config.teacher_after_round;
  if (afterRound <= 0) return { teacher: emptyTeacherPlan, teacherEnsemble: null };
  const ordinary = new Map<string, RunRow>();
  for (const row of rows)
    if (row.type === 'run' && row.generation === generation && row.status !== 'ensemble' && row.round <= afterRound)
      ordinary.set(row.run_id, row);
  const builds = rows.filter((row): row is TeacherRow => row.type === 'teacher' && row.generation === generation);
  const teacher: TeacherPlan = {
    pending: [],
    planned: ordinary.size,
    members: [...ordinary.values()]
      .filter((run) => run.status === 'trained')
      .map((run) => ({ run_id: run.run_id, config_path: run.config_path, config_sha256: run.config_sha256 })),
    offered: builds.length > 0,
  };
  const built = builds.filter((row) => row.status === 'ok').at(-1);
  const ensembleRecorded = rows.some(
    (row) => row.type === 'run' && row.generation === generation && row.run_id === ensembleRunId(generation),
  );
  const teacherEnsemble =
    built && !ensembleRecorded
      ? built.members.map((member) => ({
          config: ordinary.get(member.run_id)?.config_path ?? '',
          checkpoint: `${config.runs_root}/${member.run_id}/${member.checkpoint_name}`,
        }))
      : null;
  return { teacher, teacherEnsemble };
}

/** A trained run's selected checkpoint as its run directory says (selection.json, the validation scores). */
export interface SelectedCheckpoint {
  readonly checkpoint: string;
  readonly falseNegatives: number | null;
  readonly validationGateAuc: number | null;
}

/** The trained ordinary runs of the ledger's last generation: whose selections a carry needs. */
export function trainedRunsOfLastGeneration(rows: readonly LedgerRow[]): RunRow[] {
  const generation = Math.max(0, ...rows.filter((row) => row.type === 'generation').map((row) => row.generation));
  return rows.filter(
    (row): row is RunRow => row.type === 'run' && row.generation === generation && row.status === 'trained',
  );
}

/**
 * The round-ensemble pool of the generation from its rows (docs/behaviour.md, section 7), as the
 * seed rebuilds it from its ledger: every trained ordinary run with a selected checkpoint is a
 * member. Rounds whose ensemble has a run row (or that are too early for one) are folded into the
 * pool; the newest round, when its ensemble has no row yet, is left open, so it is scored once
 * the next round has started, as it would have been.
 */
export function roundEnsemblesFromLedger(
  rows: readonly LedgerRow[],
  generation: number,
  config: Pick<LoopConfig, 'runs_root'>,
  selected: ReadonlyMap<string, SelectedCheckpoint>,
): RoundEnsembleState {
  const members: EnsembleMember[] = [];
  for (const run of rows) {
    if (run.type !== 'run' || run.generation !== generation || run.status !== 'trained') continue;
    const selection = selected.get(run.run_id);
    if (!selection) continue;
    members.push({
      run_id: run.run_id,
      checkpoint_name: selection.checkpoint,
      config: run.config_path,
      checkpoint: `${config.runs_root}/${run.run_id}/${selection.checkpoint}`,
      validation_gate_auc: selection.validationGateAuc,
      validation_fail_to_pass: selection.falseNegatives ?? 0,
      round: run.round,
    });
  }
  const last = Math.max(0, ...members.map((member) => member.round));
  const lastScored = rows.some(
    (row) => row.type === 'run' && row.generation === generation && row.run_id === roundEnsembleRunId(generation, last),
  );
  const open = last >= ROUND_ENSEMBLE_FROM && !lastScored;
  const folded = members.filter((member) => !open || member.round < last);
  return {
    pool: rankMembers(folded).slice(0, ROUND_ENSEMBLE_MAX),
    recent: open ? { [String(last)]: members.filter((member) => member.round === last) } : {},
  };
}

/**
 * The carry that continues a loop from its ledger rows; null when the rows hold no generation.
 * `selected`: the selected checkpoint of each trained run of the generation (from its run
 * directory), for the round-ensemble pool; a run without one is no member.
 */
export function carryFromLedger(
  rows: readonly LedgerRow[],
  config: LoopConfig,
  started: string,
  selected: ReadonlyMap<string, SelectedCheckpoint> = new Map(),
): GenerationCarry | null {
  const state = foldRows(rows, foldSettingsOf(config));
  if (state.generation < 1) return null;
  const generation = state.generation;
  const runs = new Map<string, RunRow>();
  const ensembles = new Map<string, RunRow>();
  for (const row of rows) {
    if (row.type !== 'run' || row.generation !== generation) continue;
    (row.status === 'ensemble' ? ensembles : runs).set(row.run_id, row);
  }
  const queue: RunJob[] = [];
  for (const run of [...runs.values(), ...ensembles.values()]) {
    if (run.status !== 'trained' && run.status !== 'ensemble') continue;
    const scored = scoredCheckpoints(rows, run.run_id);
    const unscored = run.checkpoints.filter((name) => !scored.has(name));
    if (unscored.length > 0) queue.push(scoringJob(run, unscored));
  }
  const packaged = new Set(
    rows
      .filter((row) => row.type === 'package' && (row.event === 'launched' || row.event === 'dropped'))
      .map((row) => (row.type === 'package' ? `${row.run_id}/${row.checkpoint_name}` : '')),
  );
  const champion = state.champion;
  const unpackaged =
    champion && config.commands.package && !packaged.has(`${champion.run_id}/${champion.checkpoint_name}`)
      ? [packageChampionOf(champion, started)]
      : [];
  return {
    ...firstCarry(config, started),
    state,
    opening: null,
    round: Math.max(0, ...[...runs.values()].map((run) => run.round)),
    queue,
    ...teacherFromLedger(rows, generation, config),
    roundEnsembles: roundEnsemblesFromLedger(rows, generation, config, selected),
    unpackaged,
  };
}
