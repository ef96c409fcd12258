// Children this run waits for but did not start: carried over from an earlier run of the loop, or
// found already started under their id (a reset replayed the generation's starts). Their completion
// goes to the run that started them, so this run adopts them: an adopted child signals its report
// (report-back.ts). One that closed before it could be adopted is asked for its outcome instead.
import { getExternalWorkflowHandle, log } from '@temporalio/workflow';
import { failureText } from '../lane-failure.js';
import { adoptSignal } from '../messages.js';
import type { GenerationActivities } from './activities.js';
import type { Job } from './jobs.js';
import { onChildLost, onReportOf } from './reports.js';
import type { Generation } from './state.js';

/** Adopt every carried child that reports by its completion (the others report by signal anyway). */
export function adoptCarriedChildren(gen: Generation, activities: GenerationActivities): void {
  for (const flight of gen.inFlight)
    if (flight.byCompletion) void adoptChild(gen, flight.job, flight.childId, activities);
}

/** Ask a child this run did not start to report by signal; one already closed is settled from its outcome. */
export async function adoptChild(
  gen: Generation,
  job: Job,
  childId: string,
  activities: GenerationActivities,
): Promise<void> {
  try {
    await getExternalWorkflowHandle(childId).signal(adoptSignal);
    return;
  } catch (error) {
    log.info('child closed before this run could adopt it; reading its outcome', {
      childId,
      error: failureText(error),
    });
  }
  await settleFromOutcome(gen, job, childId, activities);
}

/**
 * What became of a child started before: completed, its result is its report; closed otherwise,
 * its job runs again; still running, it reports by signal.
 */
async function settleFromOutcome(
  gen: Generation,
  job: Job,
  childId: string,
  { childOutcome }: GenerationActivities,
): Promise<void> {
  try {
    const outcome = await childOutcome({ workflowId: childId, kind: job.kind });
    if (outcome.status === 'closed') onChildLost(gen, childId, outcome.why);
    else if (outcome.status === 'completed') onReportOf(gen, outcome.kind, 'childOutcome', outcome.report);
  } catch (error) {
    log.warn('could not learn what became of a child started before; waiting for its report', {
      childId,
      error: failureText(error),
    });
  }
}
