import type { PackageChampion, PackageOutcome } from '../activities/types.js';
import type { PackageRow } from './rows.js';

// Packaging as a fold over champion requests and package outcomes (docs/behaviour.md, section 8):
// one at a time, the newest queued wins, dropped ones recorded.
// The packaging workflow and the ledger exporter both fold with this.

export interface PackagingState {
  readonly running: PackageChampion | null;
  readonly queued: PackageChampion | null;
  /**
   * The checkpoints (`run_id/checkpoint_name`) whose package command exited 0, newest last, at
   * most MAX_PACKAGED: never packaged again (patch packaged-once; absent in older carries).
   */
  readonly packaged?: readonly string[];
  /**
   * `dropped` rows of champions replaced while a package command ran, held until that command's
   * own rows: its `launched` row carries the time it launched, which is earlier, and the ledger's
   * package rows go in time order (absent in older carries: none held).
   */
  readonly dropped?: readonly PackageRow[];
}

/** How many packaged checkpoints the state keeps: far more than a loop's champions can come back to (they only move forward). */
export const MAX_PACKAGED = 256;

/** A champion's checkpoint as `packaged` names it. */
const packagedKey = (champion: Pick<PackageChampion, 'run_id' | 'checkpoint_name'>): string =>
  `${champion.run_id}/${champion.checkpoint_name}`;

/** Whether the champion's checkpoint was packaged with exit code 0 (as far as this state remembers). */
export function alreadyPackaged(state: PackagingState, champion: PackageChampion): boolean {
  return (state.packaged ?? []).includes(packagedKey(champion));
}

export interface PackagingStep {
  readonly state: PackagingState;
  readonly rows: PackageRow[];
}

export const idlePackaging: PackagingState = { running: null, queued: null };

function row(
  event: PackageRow['event'],
  champion: PackageChampion,
  time: string,
  extra: Partial<PackageRow> = {},
): PackageRow {
  return {
    type: 'package',
    event,
    generation: champion.generation,
    run_id: champion.run_id,
    epoch: champion.epoch,
    checkpoint_name: champion.checkpoint_name,
    time,
    ...extra,
  };
}

function sameChampion(a: PackageChampion | null, b: PackageChampion): boolean {
  return (
    a !== null && a.run_id === b.run_id && a.checkpoint_name === b.checkpoint_name && a.generation === b.generation
  );
}

/**
 * A new champion: it runs now if nothing runs, else it replaces the queued one, which is dropped.
 * `packagedOnce` (patch packaged-once; false only to replay older runs): a checkpoint already
 * packaged with exit code 0 is not packaged again.
 */
export function requestPackage(state: PackagingState, champion: PackageChampion, packagedOnce = true): PackagingStep {
  // The same champion delivered twice (a retried request) is one request.
  if (sameChampion(state.running, champion) || sameChampion(state.queued, champion)) return { state, rows: [] };
  if (packagedOnce && alreadyPackaged(state, champion)) return { state, rows: [] };
  if (state.running === null) return { state: { ...state, running: champion, queued: null }, rows: [] };
  const dropped = state.queued ? [...(state.dropped ?? []), row('dropped', state.queued, champion.requested)] : [];
  return {
    state: { ...state, running: state.running, queued: champion, ...(dropped.length > 0 ? { dropped } : {}) },
    rows: [],
  };
}

/** Rows in time order, rows of one time in the order given. */
function inTimeOrder(rows: readonly PackageRow[]): PackageRow[] {
  return rows
    .map((row, index) => ({ row, index }))
    .sort((a, b) => (a.row.time < b.row.time ? -1 : a.row.time > b.row.time ? 1 : a.index - b.index))
    .map(({ row }) => row);
}

/**
 * The running package command ended (or never launched); the queued champion runs next.
 * `packagedOnce` (patch packaged-once): a command that exited 0 marks its checkpoint packaged.
 */
export function finishPackage(state: PackagingState, outcome: PackageOutcome, packagedOnce = true): PackagingStep {
  const champion = state.running;
  if (champion === null) return { state, rows: [] };
  const own = outcome.launched
    ? [
        row('launched', champion, outcome.started, { command: outcome.command, pid: outcome.pid, log: outcome.log }),
        row('finished', champion, outcome.finished, {
          exit_code: outcome.exitCode,
          // With loop.yaml `artifacts:` only, so a loop without a store writes the seed's row.
          ...(outcome.stored ? { package_uri: outcome.stored.uri } : {}),
        }),
      ]
    : [row('launch_failed', champion, outcome.time, { error: outcome.error })];
  // The drops held while it ran go in among its rows, by time.
  const rows = inTimeOrder([...own, ...(state.dropped ?? [])]);
  const succeeded = packagedOnce && outcome.launched && outcome.exitCode === 0;
  const packaged = succeeded
    ? [...(state.packaged ?? []).filter((key) => key !== packagedKey(champion)), packagedKey(champion)].slice(
        -MAX_PACKAGED,
      )
    : state.packaged;
  return { state: { running: state.queued, queued: null, ...(packaged ? { packaged } : {}) }, rows };
}

/**
 * A stop at once (`stop --now`): the running command is cancelled and killed, and the queued
 * champion never runs. Each is recorded as `launch_failed`, which does not count as packaged:
 * the loop packages its champion again when it resumes (docs/behaviour.md, section 8).
 */
export function stopPackagingAtOnce(state: PackagingState, time: string): PackagingStep {
  const rows: PackageRow[] = [...(state.dropped ?? [])];
  if (state.running)
    rows.push(
      row('launch_failed', state.running, time, {
        error: 'stopped at once (stop --now): the package command was cancelled and killed before it finished',
      }),
    );
  if (state.queued)
    rows.push(
      row('launch_failed', state.queued, time, {
        error: 'stopped at once (stop --now) while queued: its package command never ran',
      }),
    );
  return { state: idlePackaging, rows: inTimeOrder(rows) };
}
