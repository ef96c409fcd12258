import { isCancellation, log, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { LoopActivities } from './activity-types.js';
import { withSummaries } from './activity-summary.js';
import { evalSourceOf, failedEvalRow } from '../ledger/eval-row.js';
import type { LaneAdmission } from '../activities/types.js';
import type { EvalRow } from '../rules/types.js';
import { failureText, laneUnavailable } from './lane-failure.js';
import { COMMAND_NOT_FOUND, CONTRACT_ERROR, reserveReportedSignal, type ReserveReport } from './messages.js';
import type { JobInput } from './job-input.js';
import { reportBack } from './report-back.js';
import { markBaseline } from './baseline.js';

export interface ReserveCheckInput extends JobInput {
  /** The champion as it was when the check was due, and the test eval count that made it due. */
  readonly champion: EvalRow;
  readonly testEvals: number;
}

/** Score the champion once on the reserve role and report it; the generation judges the verdict. */
export async function reserveCheck(input: ReserveCheckInput): Promise<ReserveReport> {
  markBaseline();
  const { champion, paths, timeouts } = input;
  const deliver = reportBack(input);
  const { evaluateReserve } = withSummaries(
    proxyActivities<LoopActivities>({
      taskQueue: input.lane,
      scheduleToStartTimeout: timeouts.schedule_to_start,
      startToCloseTimeout: timeouts.evaluate,
      heartbeatTimeout: timeouts.heartbeat,
      retry: { maximumAttempts: input.retries.evaluate, nonRetryableErrorTypes: [COMMAND_NOT_FOUND, CONTRACT_ERROR] },
    }),
  );
  let reserve: EvalRow | null;
  let admission: LaneAdmission | undefined;
  try {
    ({ row: reserve, admission } = await evaluateReserve({
      paths,
      commands: input.commands,
      champion,
      checkpointName: champion.checkpoint_name,
      ...(input.artifacts === undefined ? {} : { artifacts: input.artifacts }),
    }));
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
    ...(admission === undefined ? {} : { admission }),
  };
  await deliver(reserveReportedSignal, report);
  return report;
}
