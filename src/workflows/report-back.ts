// How a job's child hands its report to its generation. A child started by code with patch
// `reports-by-completion` reports by its result alone: the run that started it gets it with the
// child's completion, one history event and no workflow task of its own. A run that waits for a
// child it did not start (carried over a continue-as-new, resumed, or found after a reset) cannot
// get that completion, so it adopts the child, and an adopted child signals its report as well.
import { getExternalWorkflowHandle, log, setHandler, type SignalDefinition } from '@temporalio/workflow';
import type { JobInput } from './job-input.js';
import { failureText } from './lane-failure.js';
import { adoptSignal } from './messages.js';

/** Call at the child's start; the function it gives delivers the report (a no-op until adopted, under `reportBy: 'completion'`). */
export function reportBack(input: JobInput): <T>(signal: SignalDefinition<[T]>, report: T) => Promise<void> {
  let adopted = false;
  setHandler(adoptSignal, () => {
    adopted = true;
  });
  return async (signal, report) => {
    if (input.reportBy === 'completion' && !adopted) return;
    try {
      await getExternalWorkflowHandle(input.parentId).signal(signal, report);
    } catch (error) {
      // The loop was stopped or terminated meanwhile: the result stays in this workflow's own history.
      log.warn('could not report to the generation', { parentId: input.parentId, error: failureText(error) });
    }
  };
}
