// Whether later steps may start before a step that waits for GPU memory on its lane
// (workers/lane-admission.ts): pure, so the rule and its bound are tested on their own.

/**
 * A step that waits for room may be passed by `overtaking` steps that came after it, then no
 * more: while it may, it holds no memory and lets the lane take and start smaller steps in the
 * room it cannot use yet; after, it holds its need and the lane takes nothing new until it starts.
 * `overtaking` 0 is the order the steps came in. The bound is what keeps a big step from starving:
 * however many small steps come, it waits for at most `overtaking` of them, then for the steps
 * running to end.
 */
export function mayOvertake(passed: number, overtaking: number): boolean {
  return passed < Math.max(0, Math.floor(overtaking));
}

/**
 * Whether a step of priority key `laterKey` may take room that an earlier waiting step of key
 * `waitingKey` waits for (Temporal's priority keys: smaller is more urgent). Never a less urgent
 * one: a training does not start in the memory a reserve check or an evaluation waits for, so
 * overtaking never holds back the step a generation's decision waits on. A step whose key is
 * unknown (a step outside an activity, a job from before priorities) is as urgent as any.
 */
export function mayTakeRoomOf(waitingKey: number | undefined, laterKey: number | undefined): boolean {
  return waitingKey === undefined || laterKey === undefined || laterKey <= waitingKey;
}
