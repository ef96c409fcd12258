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
