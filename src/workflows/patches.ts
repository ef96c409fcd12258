// Ids of `patched()` changes to workflow code, one place for all (docs/development.md, "Changing
// workflow code"). None is open: the 15 patches of the releases before 0.2 are retired into the
// baseline, whose code every workflow now runs unconditionally.

/**
 * The baseline marker: every workflow run started by baseline code records it once, with
 * `deprecatePatch`, in its first workflow task. It changes no command; it tells readers of a
 * history (the ledger export, ledger/history/) that the run's code has every retired change
 * below in effect, as a run recorded before the baseline tells them by each change's own marker.
 */
export const BASELINE = 'baseline-0.2';

// Retired into the baseline; history readers still look for their markers in runs recorded before it.

/** Whatever arrives by signal is bounded before it reaches state, memo or a continue-as-new input (an advance reason is cut). */
export const BOUNDED_SIGNALS = 'bounded-signals';

/** A run job given up after its last attempt ended without a report is recorded as a `train_failed` run row with the reason. */
export const GIVEN_UP_RUN_ROWS = 'given-up-run-rows';

// Open patches (docs/development.md, "Changing workflow code").

/**
 * A reserve check and a teacher build run their step through `onLane` (lane-step.ts), as a
 * training does: each call tried once, a lost lane sent again apart from the step's attempts.
 * Before it the SDK retried the activity, and a preemption cost the step its attempts (or the
 * whole teacher build, whose activity returned `failed` for a lane stopped under it).
 */
export const LANE_STEP_RETRIES = 'lane-step-retries';

/**
 * A champion that stays is told by its run and checkpoint, not by the object holding it: under
 * band decisions the champion is a different object after continue-as-new or a resume, and the
 * code before it handed the same checkpoint to packaging again (and its export wrote a champion
 * row repeating its predecessor). Runs without the marker fold with `championIdentity: 'object'`.
 */
export const CHAMPION_IDENTITY = 'champion-identity';

/**
 * The packaging workflow keeps the checkpoints whose package command exited 0 and never packages
 * one of them again (a repeated request is ignored). Runs without the marker packaged again.
 */
export const PACKAGED_ONCE = 'packaged-once';

/**
 * A lane step's attempt that a pause stopped and that reached the workflow as a failure (the SDK's
 * ApplicationFailure `ActivityPause`: the step was unpaused before its lane's report of the stop
 * arrived, so the server no longer held it) is sent again at once, apart from its attempts. Before
 * it the attempt counted as the step's own failure (and with `retries.train: 1` failed the run).
 */
export const PAUSED_ATTEMPTS = 'paused-attempts';
