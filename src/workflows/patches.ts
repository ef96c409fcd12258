// Ids of `patched()` changes to workflow code, one place for all (docs/development.md, "Changing workflow code").

/** A child found already started under its id is asked for its outcome (children started with REJECT_DUPLICATE). */
export const CLOSED_CHILD_REPORTS = 'closed-child-reports';

/** A training run writes its job config with a local activity in its first workflow task. */
export const PREPARE_RUN_LOCALLY = 'prepare-run-locally';

/** A stop at once returns the packaging workflow's running and queued champions, and the generation carries its unpackaged champion. */
export const STOP_NOW_UNPACKAGED = 'stop-now-unpackaged';

/** A run job given up after its last attempt ended without a report is recorded as a `train_failed` run row with the reason. */
export const GIVEN_UP_RUN_ROWS = 'given-up-run-rows';

/** Whatever arrives by signal is bounded before it reaches state, memo or a continue-as-new input (an advance reason is cut). */
export const BOUNDED_SIGNALS = 'bounded-signals';

/** A round whose runs all failed for one reason makes the loop say so (`failing`) and pause before it plans the next, longer each time. */
export const FAILING_BACKOFF = 'failing-backoff';

/** A resumed generation whose teacher build was offered, and whose file is missing (the build failed), offers it again. */
export const TEACHER_REOFFER_ON_RESUME = 'teacher-reoffer-on-resume';

/** With loop.yaml `mlflow:`, each successfully packaged champion is registered in MLflow (a background activity; the package row does not wait). */
export const MODEL_REGISTRY = 'model-registry';

/** loop.yaml `champion_rule` other than the default `dominance` decides champions (docs/champion-rules.md). */
export const CHAMPION_RULE = 'champion-rule';

/**
 * Children report by their completion to the generation run that started them; a run adopts the
 * children it carries (or finds started already) and those report by signal (docs/development.md, "Changing workflow code").
 */
export const REPORTS_BY_COMPLETION = 'reports-by-completion';

/** A generation run continues as new at MAX_RUN_EVENTS history events (generation/hand-over.ts), not only when Temporal suggests it. */
export const RUN_EVENTS_CAP = 'run-events-cap';

/**
 * A round whose planning read the candidates file while the last run of the previous round failed
 * (the loop turned failing during the read) is not planned: the loop pauses first.
 */
export const PAUSE_DURING_PLANNING = 'pause-during-planning';

/**
 * A split that fails (after its activity's attempts) is given up: a `split` row, the memo's
 * `split_failed`, no run started until `resume`, a stop and start, or an advance. Before, it was
 * tried again every minute for ever.
 */
export const SPLIT_GIVES_UP = 'split-gives-up';

/**
 * A `resume` signal hands the champion to packaging again when someone ended the packaging
 * workflow by hand (terminated, cancelled) or it failed: what it held was lost with it.
 */
export const REPACKAGE_ON_RESUME = 'repackage-on-resume';

/**
 * A lane lost under a training or an evaluation (its worker killed or preempted, its lane stopped
 * at once) counts against loop.yaml `retries.lost_lane`, apart from `retries.train` and
 * `retries.evaluate` (lane-attempts.ts); the run row says how many lanes its training lost.
 */
export const LOST_LANES_APART = 'lost-lanes-apart';
