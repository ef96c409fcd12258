import { isCancellation, log, workflowInfo } from '@temporalio/workflow';
import { evalSourceOf, failedEvalRow } from '../ledger/eval-row.js';
import type { LaneAdmission, MemoryWaits, ReserveOutcome } from '../activities/types.js';
import { laneLimits, onLaneOrThrow } from './lane-step.js';
import type { LoopActivities } from './activity-types.js';
import type { EvalRow } from '../rules/types.js';
import { failureText, laneUnavailable } from './lane-failure.js';
import { reserveReportedSignal, type ReserveReport } from './messages.js';
import type { JobInput } from './job-input.js';
import { reportBack } from './report-back.js';
import { markBaseline } from './baseline.js';
import { definedFields } from '../support/defined-fields.js';

export interface ReserveCheckInput extends JobInput {
  /** The champion as it was when the check was due, and the test eval count that made it due. */
  readonly champion: EvalRow;
  readonly testEvals: number;
}

/**
 * The step on the job's lane: a lane lost under it sends it again apart from its attempts
 * (lane-step.ts; histories from before it: the SDK's retries).
 */
function scoreOnLane(
  input: ReserveCheckInput,
  call: (evaluateReserve: LoopActivities['evaluateReserve']) => Promise<ReserveOutcome>,
): Promise<ReserveOutcome> {
  return onLaneOrThrow(
    input,
    'evaluateReserve',
    `reserve check of ${input.champion.run_id} ${input.champion.checkpoint_name}`,
    call,
    // The SDK's retries never repeated what no lane attempt repeats.
    laneLimits('evaluateReserve', input).final,
  );
}

/** Score the champion once on the reserve role and report it; the generation judges the verdict. */
export async function reserveCheck(input: ReserveCheckInput): Promise<ReserveReport> {
  markBaseline();
  const { champion, paths } = input;
  const deliver = reportBack(input);
  let reserve: EvalRow | null;
  let admission: LaneAdmission | undefined;
  let peakMiB: number | undefined;
  let memoryWaits: MemoryWaits | undefined;
  const request = {
    paths,
    commands: input.commands,
    champion,
    checkpointName: champion.checkpoint_name,
    ...definedFields({ artifacts: input.artifacts, laneJob: input.laneJob }),
  };
  try {
    ({
      row: reserve,
      admission,
      peakMiB,
      memory_waits: memoryWaits,
    } = await scoreOnLane(input, (evaluateReserve) => evaluateReserve(request)));
  } catch (error) {
    if (isCancellation(error)) throw error;
    if (laneUnavailable(error)) reserve = null;
    else {
      log.warn('reserve evaluation failed; the check could not run', { error: failureText(error) });
      reserve = failedEvalRow(
        evalSourceOf(champion),
        champion.checkpoint_name,
        'reserve',
        paths,
        new Date().toISOString(),
      );
    }
  }
  const report: ReserveReport = {
    childId: workflowInfo().workflowId,
    jobId: input.jobId,
    champion,
    testEvals: input.testEvals,
    reserve,
    ...definedFields({ admission, peakMiB, memoryWaits }),
  };
  await deliver(reserveReportedSignal, report);
  return report;
}
