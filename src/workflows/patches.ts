// Ids of `patched()` changes to workflow code, one place for all (README, "Changing workflow code").

/** A child found already started under its id is asked for its outcome (children started with REJECT_DUPLICATE). */
export const CLOSED_CHILD_REPORTS = 'closed-child-reports';

/** A training run writes its job config with a local activity in its first workflow task. */
export const PREPARE_RUN_LOCALLY = 'prepare-run-locally';

/** A stop at once returns the packaging workflow's running and queued champions, and the generation carries its unpackaged champion. */
export const STOP_NOW_UNPACKAGED = 'stop-now-unpackaged';
