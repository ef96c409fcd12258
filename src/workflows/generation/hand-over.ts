// Moments when the generation lets go of work: champions to packaging, continue-as-new, a stop
// at once, and the waits between turns of the main loop.
import {
  CancellationScope,
  condition,
  getExternalWorkflowHandle,
  log,
  upsertMemo,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { newerBuildIsCurrent } from '../build-upgrade.js';
import type { PackageChampion } from '../../activities/types.js';
import type { LoopConfig } from '../../config/loop-config.js';
import { packagingWorkflowId } from '../ids.js';
import { failureText } from '../lane-failure.js';
import { CHAMPION } from '../../contract/search-attributes.js';
import type { GenerationActivities } from './activities.js';
import { cancelAllInFlight } from './reports.js';
import { now, packageChampionOf, type Generation } from './state.js';

/** How long an idle loop (no active candidates, or the split failing) waits before it looks again. */
const IDLE_POLL_MS = 60_000;

/**
 * Hand every new champion to the loop's packaging workflow, oldest first; after a `resume`, the
 * champion again if someone ended packaging by hand (it lost what it held).
 */
export async function sendChampionsToPackaging(
  gen: Generation,
  { requestPackaging }: GenerationActivities,
): Promise<void> {
  const { config, loopId } = gen;
  if (!config.commands.package) return;
  const input = {
    loopId,
    paths: gen.paths,
    command: config.commands.package,
    timeouts: config.timeouts,
    retries: config.retries,
    ...(config.mlflow ? { mlflow: config.mlflow } : {}),
    ...(config.artifacts ? { artifacts: config.artifacts } : {}),
  };
  while (gen.unpackaged.length > 0) {
    const champion = gen.unpackaged[0] as PackageChampion;
    await requestPackaging({ workflowId: packagingWorkflowId(loopId), champion, input });
    gen.unpackaged.shift();
    upsertSearchAttributes([{ key: CHAMPION, value: `${champion.run_id}/${champion.checkpoint_name}` }]);
    upsertMemo({ champion: gen.state.champion ? gen.state.champion.result : null });
  }
  const champion = gen.state.champion;
  if (gen.repackage && champion) {
    gen.repackage = false;
    const handed = await requestPackaging({
      workflowId: packagingWorkflowId(loopId),
      champion: packageChampionOf(champion, now()),
      input,
      onlyIfEnded: true,
    });
    if (handed)
      log.info('packaging had been ended by hand; the champion is packaged again', {
        trainingRunId: champion.run_id,
      });
  }
}

/**
 * The history events at which a generation run hands over to a new run (continue-as-new), before
 * Temporal would suggest it (thousands of events, or megabytes): a worker that takes a loop over
 * replays its whole current run, and 500 events replay in about half a second on a 2-core box
 * (bench, section 4). A hand-over costs a few events per job in flight (the new run adopts
 * them), so the cap grows with `parallel`: 32 events per job slot, at least 500. loop.yaml
 * `max_run_events` sets it.
 */
export function maxRunEvents(config: Pick<LoopConfig, 'max_run_events' | 'parallel'>): number {
  return config.max_run_events ?? Math.max(500, 32 * config.parallel);
}

/** Time for this run to continue as new: Temporal suggests it, or the run reached its cap of events. */
export function handOverDue(gen: Generation): boolean {
  const info = workflowInfo();
  const cap = maxRunEvents(gen.config);
  // A newer build became the deployment's current version: the next run starts on it (deployment.ts).
  if (newerBuildIsCurrent()) return true;
  return info.continueAsNewSuggested || info.historyLength >= cap;
}

/** Wait until every child this run launched exists, so that ending the run (or cancelling them) cannot lose one. */
async function childrenStarted(gen: Generation): Promise<void> {
  await condition(() => gen.startsPending === 0);
}

/** Before continue-as-new: no child start pending, no new champion left unsent (neither travels in the carry). */
export async function settleBeforeHandOver(gen: Generation, activities: GenerationActivities): Promise<void> {
  await childrenStarted(gen);
  await sendChampionsToPackaging(gen, activities);
}

/**
 * Cancel every running child (their subprocesses are killed) and stop packaging at once. A
 * champion whose package command the stop killed, or that was queued for one, stays unpackaged
 * in the carry when it is still the champion: the resumed loop packages it (docs/behaviour.md, 8).
 */
export async function stopAtOnce(gen: Generation, { stopPackaging }: GenerationActivities): Promise<void> {
  await childrenStarted(gen);
  for (const { childId } of cancelAllInFlight(gen)) {
    await getExternalWorkflowHandle(childId)
      .cancel()
      .catch((error: unknown) => log.warn('could not cancel child', { childId, error: failureText(error) }));
  }
  if (!gen.config.commands.package) return;
  const champion = gen.state.champion;
  const isChampion = (entry: PackageChampion | null): entry is PackageChampion =>
    entry !== null &&
    champion !== null &&
    entry.generation === champion.generation &&
    entry.run_id === champion.run_id &&
    entry.checkpoint_name === champion.checkpoint_name;
  let left: PackageChampion | undefined;
  try {
    const stopped = await stopPackaging({ workflowId: packagingWorkflowId(gen.loopId) });
    left = [stopped.running, stopped.queued].find(isChampion);
  } catch (error) {
    // Unknown whether its package finished: packaging it again beats never packaging it.
    log.warn('could not stop packaging; the champion is packaged again on resume', { error: failureText(error) });
    left = champion ? packageChampionOf(champion, now()) : undefined;
  }
  if (left && !gen.unpackaged.some(isChampion)) gen.unpackaged.push(left);
}

/** Between turns: an idle loop watches its files; a busy one waits for a report, a signal or a lane coming back. */
export async function waitForWork(gen: Generation, activities: GenerationActivities): Promise<void> {
  if (pausing(gen) && !gen.stopping) await pauseUntilChange(gen, activities);
  else if (gen.idle && gen.splitError === null && !gen.stopping) await idleUntilChange(gen, activities);
  else await condition(() => gen.dirty || gen.stopNow || gen.unpackaged.length > 0, wakeAfter(gen));
}

/**
 * No active candidates: wait for a teacher file to appear or the candidates file to change, in
 * one heartbeating activity (an idle loop adds nothing to its history while it waits), or for a signal.
 */
async function idleUntilChange(gen: Generation, { waitForChange }: GenerationActivities): Promise<void> {
  const scope = new CancellationScope();
  let finished = false;
  const watching = scope.run(() =>
    waitForChange({ files: gen.waitingFor, candidatesFile: gen.config.candidates, maxMs: 3_600_000 }),
  );
  watching.then(
    () => (finished = true),
    () => (finished = true),
  );
  await condition(() => finished || gen.dirty || gen.stopNow || gen.unpackaged.length > 0 || gen.builds.length > 0);
  if (!finished) scope.cancel();
}

/** A failing loop's pause before its next round is on (generation/reports.ts, noteRunOutcome). */
export function pausing(gen: Generation): boolean {
  return gen.failing !== null && gen.failing.until > Date.now();
}

/**
 * A failing loop pauses: until the pause is over, the candidates file changes (one heartbeating
 * activity, nothing in history while it waits), a report or a signal comes in.
 */
async function pauseUntilChange(gen: Generation, { waitForChange }: GenerationActivities): Promise<void> {
  const scope = new CancellationScope();
  let finished = false;
  const maxMs = Math.max(1, (gen.failing?.until ?? 0) - Date.now());
  const watching = scope.run(() => waitForChange({ files: [], candidatesFile: gen.config.candidates, maxMs }));
  watching.then(
    (change) => {
      finished = true;
      if (change === 'candidates-changed' && gen.failing) {
        log.info('candidates file changed; the failing loop plans its next round now', { reason: gen.failing.reason });
        gen.failing = { ...gen.failing, until: 0 };
      }
    },
    () => (finished = true),
  );
  await condition(() => finished || gen.dirty || gen.stopNow || gen.unpackaged.length > 0 || gen.builds.length > 0);
  if (!finished) scope.cancel();
}

/** When to look again without a signal: an idle loop polls; a down lane comes back. */
function wakeAfter(gen: Generation): number | undefined {
  const waits: number[] = [];
  if (gen.idle) waits.push(IDLE_POLL_MS);
  const t = Date.now();
  for (const until of Object.values(gen.lanesDownUntil)) if (until > t) waits.push(until - t);
  return waits.length > 0 ? Math.max(1, Math.min(...waits)) : undefined;
}
