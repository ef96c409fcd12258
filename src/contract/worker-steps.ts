// A worker's activities, held to the catalogue (steps.ts): exactly the steps that worker registers,
// so a step added there is asked for here by the compiler, and a map that drifts fails when the
// worker is made rather than when a workflow first schedules the missing step.
import { stepsOf, type StepOf, type StepWorker } from './steps.js';

/** `activities`, checked to hold exactly the catalogue's steps of `worker`: the compiler and, at run time, the call say what is missing or extra. */
export function workerSteps<W extends StepWorker, T extends Record<StepOf<W>, unknown>>(
  worker: W,
  activities: T & Record<Exclude<keyof T, StepOf<W>>, never>,
): T {
  const expected: readonly string[] = stepsOf(worker);
  const given = Object.keys(activities);
  const missing = expected.filter((name) => !given.includes(name));
  const extra = given.filter((name) => !expected.includes(name));
  if (missing.length > 0 || extra.length > 0)
    throw new Error(
      `the ${worker} worker's activities differ from the catalogue of steps (src/contract/steps.ts): missing ${missing.join(', ') || 'none'}, not in it ${extra.join(', ') || 'none'}`,
    );
  return activities;
}
