import type { FileRef } from '../artifacts/file-ref.js';
import { ROUND_ENSEMBLE_FROM, ROUND_ENSEMBLE_MAX } from '../rules/constants.js';

// Round ensembles (docs/behaviour.md, section 7): from round 3, each finished round scores the ensemble of the
// selected checkpoints of every trained ordinary run so far, at most 24 ranked by validation.
// The generation keeps only the best 24 of the rounds already folded in plus the members of
// rounds not yet finished, so what it carries stays small however long the generation runs.

/** A trained run's selected checkpoint as an ensemble member (the seed's member fields). */
export interface EnsembleMember {
  readonly run_id: string;
  readonly checkpoint_name: string;
  readonly config: string;
  readonly checkpoint: string;
  readonly validation_gate_auc: number | null;
  readonly validation_fail_to_pass: number;
  /** Its round: ties rank by round, then run id, as the seed lists them. */
  readonly round: number;
  /** With loop.yaml `artifacts:`: its checkpoint, job config and split in the store (its run row's). */
  readonly files?: readonly FileRef[];
}

export interface RoundEnsembleState {
  /** The best members of every round already folded in. */
  readonly pool: readonly EnsembleMember[];
  /** Members of rounds not yet folded in, by round. */
  readonly recent: Readonly<Record<string, readonly EnsembleMember[]>>;
}

export const emptyRoundEnsembles: RoundEnsembleState = { pool: [], recent: {} };

/** The seed's ranking: higher validation AUC first, runs without one after, by fewer Fail->Pass; then round, run id. */
export function rankMembers(members: readonly EnsembleMember[]): EnsembleMember[] {
  const key = (member: EnsembleMember) => (member.validation_gate_auc === null ? 0 : -member.validation_gate_auc);
  return [...members].sort(
    (a, b) =>
      key(a) - key(b) ||
      a.validation_fail_to_pass - b.validation_fail_to_pass ||
      a.round - b.round ||
      (a.run_id < b.run_id ? -1 : a.run_id > b.run_id ? 1 : 0),
  );
}

/** A round was planned: it gets an ensemble when it finishes, even if none of its own runs trained. */
export function openRound(state: RoundEnsembleState, round: number): RoundEnsembleState {
  const key = String(round);
  return key in state.recent ? state : { ...state, recent: { ...state.recent, [key]: [] } };
}

/** A trained ordinary run's member joins its round. */
export function addMember(state: RoundEnsembleState, member: EnsembleMember): RoundEnsembleState {
  const key = String(member.round);
  return { ...state, recent: { ...state.recent, [key]: [...(state.recent[key] ?? []), member] } };
}

/** A round's ensemble to score: its members, best first. */
export interface DueRoundEnsemble {
  readonly round: number;
  readonly members: EnsembleMember[];
}

/**
 * Fold every finished round (in order) into the pool; each finished round from round 3 on with
 * at least two members gives an ensemble to score. `finished(r)`: the next round has started and
 * no run of rounds <= r is pending.
 */
export function foldFinishedRounds(
  state: RoundEnsembleState,
  finished: (round: number) => boolean,
): { state: RoundEnsembleState; due: DueRoundEnsemble[] } {
  const rounds = Object.keys(state.recent)
    .map(Number)
    .sort((a, b) => a - b);
  let pool = state.pool;
  const recent: Record<string, readonly EnsembleMember[]> = { ...state.recent };
  const due: DueRoundEnsemble[] = [];
  for (const round of rounds) {
    if (!finished(round)) break;
    const members = rankMembers([...pool, ...(recent[String(round)] ?? [])]).slice(0, ROUND_ENSEMBLE_MAX);
    if (round >= ROUND_ENSEMBLE_FROM && members.length >= 2) due.push({ round, members });
    pool = members;
    delete recent[String(round)];
  }
  return { state: { pool, recent }, due };
}
