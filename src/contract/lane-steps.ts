// The activities a GPU lane's worker runs, listed once: the lane worker registers these, the
// activities module builds a lane's set of them from this list, and a new lane step is one entry
// here (the compiler then asks for it where a lane's activities are made). Workflow-safe: names only.

/** The lane's activities by name: training, test evaluation, reserve evaluation, teacher build. */
const LANE_STEPS = ['trainRun', 'evaluateRun', 'evaluateReserve', 'buildTeacher'] as const;

export type LaneStepName = (typeof LANE_STEPS)[number];

/** A value for each lane step, built from the list: `fill('trainRun')` ... in the list's order. */
export function eachLaneStep<T>(fill: (name: LaneStepName) => T): Record<LaneStepName, T> {
  return Object.fromEntries(LANE_STEPS.map((name) => [name, fill(name)])) as Record<LaneStepName, T>;
}
