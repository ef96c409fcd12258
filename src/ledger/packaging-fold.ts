import type { PackageChampion, PackageOutcome } from '../activities/types.js';
import type { PackageRow } from './rows.js';

// Packaging as a fold over champion requests and package outcomes (docs/behaviour.md, section 8):
// one at a time, the newest queued wins, dropped ones recorded.
// The packaging workflow and the ledger exporter both fold with this.

export interface PackagingState {
  readonly running: PackageChampion | null;
  readonly queued: PackageChampion | null;
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

/** A new champion: it runs now if nothing runs, else it replaces the queued one, which is dropped. */
export function requestPackage(state: PackagingState, champion: PackageChampion): PackagingStep {
  // The same champion delivered twice (a retried request) is one request.
  if (sameChampion(state.running, champion) || sameChampion(state.queued, champion)) return { state, rows: [] };
  if (state.running === null) return { state: { running: champion, queued: null }, rows: [] };
  const rows = state.queued ? [row('dropped', state.queued, champion.requested)] : [];
  return { state: { running: state.running, queued: champion }, rows };
}

/** The running package command ended (or never launched); the queued champion runs next. */
export function finishPackage(state: PackagingState, outcome: PackageOutcome): PackagingStep {
  const champion = state.running;
  if (champion === null) return { state, rows: [] };
  const rows = outcome.launched
    ? [
        row('launched', champion, outcome.started, { command: outcome.command, pid: outcome.pid, log: outcome.log }),
        row('finished', champion, outcome.finished, {
          exit_code: outcome.exitCode,
          // With loop.yaml `artifacts:` only, so a loop without a store writes the seed's row.
          ...(outcome.stored ? { package_uri: outcome.stored.uri } : {}),
        }),
      ]
    : [row('launch_failed', champion, outcome.time, { error: outcome.error })];
  return { state: { running: state.queued, queued: null }, rows };
}

/**
 * A stop at once (`stop --now`): the running command is cancelled and killed, and the queued
 * champion never runs. Each is recorded as `launch_failed`, which does not count as packaged:
 * the loop packages its champion again when it resumes (docs/behaviour.md, section 8).
 */
export function stopPackagingAtOnce(state: PackagingState, time: string): PackagingStep {
  const rows: PackageRow[] = [];
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
  return { state: idlePackaging, rows };
}
