// The failure types activities raise and workflows check, defined once: activities raise them
// (through src/activities/support/step-errors.ts), workflows name them in retry policies and
// checks. Plain strings, so the workflow bundle imports this module and activities import no
// workflow module for them.

/** A command that does not exist or cannot be executed: retrying cannot help. */
export const COMMAND_NOT_FOUND = 'CommandNotFound';

/** A step whose command ran and failed (retryable: a crash may not repeat). */
export const STEP_FAILED = 'StepFailed';

/** A candidate's base config that cannot be read or is not a YAML mapping (prepareRun). */
export const CONFIG_ERROR = 'ConfigError';

/**
 * A file or input that breaks the subprocess contract (docs/contract.md); also the name of
 * src/contract/errors.ts's ContractError, which reaches workflows as a failure of this type.
 */
export const CONTRACT_ERROR = 'ContractError';

/** The generation's split file is gone (its state dir emptied under the loop): prepareRun writes no job config naming it. */
export const SPLIT_MISSING = 'SplitMissing';

/** A trained run's job config is gone (its state dir emptied under the loop): its training run writes it again, then scores. */
export const JOB_CONFIG_MISSING = 'JobConfigMissing';

/** A run directory that is not this loop's (trainRun leaves it untouched). */
export const STALE_RUN_DIR = 'StaleRunDir';

/** A lane host's data_root is not the orchestrator's (a fleet without a shared disk, docs/artifacts.md). */
export const DATA_MISMATCH = 'DataMismatch';

/** The artifact store did not take a job's inputs (down, refusing): the run waits for it and tries again. */
export const STORE_UNAVAILABLE = 'StoreUnavailable';
