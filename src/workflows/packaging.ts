import {
  CancellationScope,
  condition,
  isCancellation,
  log,
  patched,
  proxyActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { continueOnCurrentBuild, newerBuildIsCurrent } from './build-upgrade.js';
import type { packageActivities } from '../activities/index.js';
import type { PackageOutcome } from '../activities/types.js';
import {
  alreadyPackaged,
  finishPackage,
  idlePackaging,
  requestPackage,
  type PackagingState,
} from '../ledger/packaging-fold.js';
import { registrations } from './registrations.js';
import { withSummaries } from './activity-summary.js';
import { failureText } from './lane-failure.js';
import { championSignal, packagingQuery, stopNowSignal } from './messages.js';
import { stepOptions } from './step-options.js';
import { takenChampion } from './report-shapes.js';
import type { PackagingInput } from '../contract/packaging.js';
import { LOOP_ID, LOOP_KIND } from '../contract/search-attributes.js';
import { markBaseline } from './baseline.js';
import { PACKAGED_ONCE } from './patches.js';

/**
 * One per loop: receives champions by signal and packages them one at a time, newest queued wins.
 * A stop at once ends it and returns what it left unpackaged (the running command is killed);
 * the ledger records both as launch_failed (`stopPackagingAtOnce`).
 */
export async function packaging(input: PackagingInput): Promise<PackagingState | undefined> {
  markBaseline();
  // Code before it packaged a checkpoint again when asked again after a success (patches.ts).
  const packagedOnce = patched(PACKAGED_ONCE);
  upsertSearchAttributes([
    { key: LOOP_ID, value: input.loopId },
    { key: LOOP_KIND, value: 'packaging' },
  ]);
  const { packageChampion } = packagingActivities(input);
  // Registrations run beside packaging: a registry that is down holds up no package.
  const registry = input.mlflow ? registrations(input.mlflow) : null;
  let state = input.carry ?? idlePackaging;
  let stopping = false;
  const scope = new CancellationScope();

  setHandler(championSignal, (champion) => {
    // After a stop at once nothing runs any more (the exporter stops folding there too).
    if (stopping) return;
    state = championRequested(state, champion, packagedOnce);
  });
  setHandler(stopNowSignal, () => {
    stopping = true;
    scope.cancel();
  });
  setHandler(packagingQuery, () => ({
    running: state.running,
    queued: state.queued,
    ...(registry ? { registry: registry.view() } : {}),
  }));

  // What a stop at once leaves: the champion whose command it killed and the one queued behind it.
  const stopped = (): PackagingState => state;

  for (;;) {
    // Idle, it hands over when Temporal suggests it or a newer build became current (it then starts on that one).
    await condition(
      () => state.running !== null || stopping || workflowInfo().continueAsNewSuggested || newerBuildIsCurrent(),
    );
    if (stopping) return stopped();
    const champion = state.running;
    if (champion === null) {
      // A registration still waiting or retrying ends in this run: registrations do not travel in the carry.
      if (registry && !registry.idle()) {
        await condition(() => registry.idle() || stopping);
        if (stopping) return stopped();
      }
      // On the worker deployment's current build, as a generation does.
      await continueOnCurrentBuild<typeof packaging>({ ...input, carry: state });
      return undefined;
    }
    let outcome: PackageOutcome;
    try {
      const store = input.artifacts ? { store: { settings: input.artifacts, loopId: input.loopId } } : {};
      outcome = await scope.run(() =>
        packageChampion({ paths: input.paths, command: input.command, champion, ...store }),
      );
    } catch (error) {
      if (isCancellation(error) && stopping) return stopped();
      const now = new Date().toISOString();
      // The activity gave up (worker lost, timed out): the command ran but its exit code is unknown.
      outcome = { launched: false, error: failureText(error), time: now };
    }
    // The rows themselves are rebuilt from this history by the ledger exporter.
    state = finishPackage(state, outcome, packagedOnce).state;
    if (registry && outcome.launched && outcome.exitCode === 0)
      registry.add({
        loopId: input.loopId,
        paths: input.paths,
        champion,
        packageLog: outcome.log,
        ...(outcome.stored ? { packageUri: outcome.stored.uri } : {}),
      });
  }
}

/** The packaging activity, on the package queue with the loop's timeouts and retries (its catalogue entry). */
function packagingActivities(input: PackagingInput) {
  return withSummaries(proxyActivities<typeof packageActivities>(stepOptions('packageChampion', { loop: input })));
}

/**
 * The packaging state once a champion signal is taken: the champion queued (newest wins), or the
 * state as it was for a signal sent by hand without a champion's shape, or over the bounds:
 * logged, never queued, so it never reaches the state or a continue-as-new input (a ledger read
 * from history skips it too).
 */
function championRequested(state: PackagingState, champion: unknown, packagedOnce: boolean): PackagingState {
  const taken = takenChampion(champion, () => true);
  if (taken === null) {
    log.warn('ignoring a champion signal: not a champion, or over its size bound', {
      input: JSON.stringify(champion ?? null).slice(0, 200),
    });
    return state;
  }
  if (packagedOnce && alreadyPackaged(state, taken)) {
    log.info('champion already packaged with exit code 0; not packaged again', {
      trainingRunId: taken.run_id,
      checkpoint: taken.checkpoint_name,
    });
  }
  return requestPackage(state, taken, packagedOnce).state;
}
