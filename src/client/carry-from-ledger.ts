// Where a loop goes on from when all that is left of it is its ledger (the copy in its state dir,
// or a seed loop's): the same generation, champion, front and reserve checks, the runs of the
// generation that were trained but not fully scored scored, and a champion never packaged packaged.
import type { LoopConfig } from '../config/loop-config.js';
import { foldRows } from '../ledger/from-ledger.js';
import { foldSettingsOf } from '../ledger/loop-state.js';
import type { LedgerRow, RunRow } from '../ledger/rows.js';
import { firstCarry, type GenerationCarry } from '../workflows/generation/carry.js';
import type { RunJob } from '../workflows/generation/jobs.js';
import { packageChampionOf } from '../workflows/generation/state.js';

/** Checkpoints of a trained run that have a test eval row. */
function scoredCheckpoints(rows: readonly LedgerRow[], runId: string): Set<string> {
  return new Set(rows.filter((row) => row.type === 'eval' && row.role === 'test' && row.run_id === runId).map((row) => (row.type === 'eval' ? row.checkpoint_name : '')));
}

/** A trained run with checkpoints left to score: an evaluation-only job. */
function scoringJob(run: RunRow, unscored: string[]): RunJob {
  return {
    kind: 'run',
    jobId: run.run_id,
    generation: run.generation,
    round: run.round,
    candidate: { name: run.candidate, base_config: '', overrides: {} },
    attempt: 1,
    run,
    unscored,
    preferredLane: null,
  };
}

/** The carry that continues a loop from its ledger rows; null when the rows hold no generation. */
export function carryFromLedger(rows: readonly LedgerRow[], config: LoopConfig, started: string): GenerationCarry | null {
  const state = foldRows(rows, foldSettingsOf(config));
  if (state.generation < 1) return null;
  const generation = state.generation;
  const runs = new Map<string, RunRow>();
  for (const row of rows) if (row.type === 'run' && row.generation === generation && row.status !== 'ensemble') runs.set(row.run_id, row);
  const queue: RunJob[] = [];
  for (const run of runs.values()) {
    if (run.status !== 'trained') continue;
    const scored = scoredCheckpoints(rows, run.run_id);
    const unscored = run.checkpoints.filter((name) => !scored.has(name));
    if (unscored.length > 0) queue.push(scoringJob(run, unscored));
  }
  const packaged = new Set(rows.filter((row) => row.type === 'package' && (row.event === 'launched' || row.event === 'dropped')).map((row) => (row.type === 'package' ? `${row.run_id}/${row.checkpoint_name}` : '')));
  const champion = state.champion;
  const unpackaged = champion && config.commands.package && !packaged.has(`${champion.run_id}/${champion.checkpoint_name}`) ? [packageChampionOf(champion, started)] : [];
  return {
    ...firstCarry(config, started),
    state,
    opening: null,
    round: Math.max(0, ...[...runs.values()].map((run) => run.round)),
    queue,
    unpackaged,
  };
}
