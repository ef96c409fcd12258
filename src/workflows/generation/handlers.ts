// How the generation answers its messages: the workers' reports and the operator's commands as
// signals, the same commands as updates, and its queries. Installing handlers issues no command.
import { setHandler, workflowInfo } from '@temporalio/workflow';
import { onReserveReport, onResume, onRunReport, onTeacherReport } from './reports.js';
import { onAdvance, onStop, onStopNow, validateAdvance, validateStop, validateStopNow } from './control.js';
import { onLaneDraining, toCarry, view, type Generation } from './state.js';
import {
  advanceSignal,
  advanceUpdate,
  carryQuery,
  reserveReportedSignal,
  resumeSignal,
  runReportedSignal,
  startUpdate,
  stateQuery,
  stopNowSignal,
  laneDrainingSignal,
  stopNowUpdate,
  stopSignal,
  stopUpdate,
  teacherReportedSignal,
} from '../messages.js';

/**
 * Sets the generation's signal, update and query handlers. `startToken` is the token of the start
 * that began this run (Update-with-Start), which the start update answers by.
 */
export function answerMessages(gen: Generation, startToken: string | undefined): void {
  setHandler(runReportedSignal, (report) => onRunReport(gen, runReportedSignal.name, report));
  setHandler(teacherReportedSignal, (report) => onTeacherReport(gen, teacherReportedSignal.name, report));
  setHandler(reserveReportedSignal, (report) => onReserveReport(gen, reserveReportedSignal.name, report));
  setHandler(advanceSignal, (reason: unknown) => onAdvance(gen, reason));
  setHandler(resumeSignal, () => onResume(gen));
  setHandler(stopSignal, () => onStop(gen));
  setHandler(stopNowSignal, () => onStopNow(gen));
  setHandler(laneDrainingSignal, (notice) => onLaneDraining(gen, notice));
  // The same commands as updates: refused with a reason by their validators, else applied as the
  // signals are and answered with the loop's view. Synchronous, so they add no command to history.
  setHandler(
    advanceUpdate,
    (reason: string) => {
      onAdvance(gen, reason);
      return view(gen);
    },
    {
      validator: (reason: string, fromGeneration?: number, named?: boolean) =>
        validateAdvance(gen, reason, fromGeneration, named),
    },
  );
  setHandler(
    stopUpdate,
    () => {
      onStop(gen);
      return view(gen);
    },
    { validator: () => validateStop(gen) },
  );
  setHandler(
    stopNowUpdate,
    () => {
      onStopNow(gen);
      return view(gen);
    },
    { validator: () => validateStopNow(gen) },
  );
  // Answers the start that sent it with the start (Update-with-Start): did it start this run?
  setHandler(startUpdate, (token: string) => ({
    startedHere: token === startToken,
    runId: workflowInfo().runId,
    view: view(gen),
  }));
  setHandler(stateQuery, () => view(gen));
  setHandler(carryQuery, () => toCarry(gen));
}
