import { ApplicationFailure } from '@temporalio/common';
import {
  COMMAND_NOT_FOUND,
  CONFIG_ERROR,
  CONTRACT_ERROR,
  DATA_MISMATCH,
  JOB_CONFIG_MISSING,
  SPLIT_MISSING,
  STALE_RUN_DIR,
  STEP_FAILED,
} from '../../contract/failures.js';

// The failure types are defined in src/contract/failures.ts, where workflows (which name them in
// retry policies) import them too; activities raise them through the helpers below.
export {
  COMMAND_NOT_FOUND,
  CONFIG_ERROR,
  CONTRACT_ERROR,
  DATA_MISMATCH,
  JOB_CONFIG_MISSING,
  SPLIT_MISSING,
  STALE_RUN_DIR,
};

/** A command that does not exist or cannot be executed: retrying cannot help. */
export function commandNotFound(message: string): ApplicationFailure {
  return ApplicationFailure.create({ message, type: COMMAND_NOT_FOUND, nonRetryable: true });
}

/** Whether an error says the command could not be started at all. */
export function isCommandNotFound(error: unknown): error is ApplicationFailure {
  return error instanceof ApplicationFailure && error.type === COMMAND_NOT_FOUND;
}

/** A step's command ran and failed. */
export function stepFailed(message: string): ApplicationFailure {
  return ApplicationFailure.create({ message, type: STEP_FAILED });
}

/** The failure types of input that a retry would read the same way again. */
export type BadInputType =
  | typeof CONFIG_ERROR
  | typeof CONTRACT_ERROR
  | typeof STALE_RUN_DIR
  | typeof SPLIT_MISSING
  | typeof JOB_CONFIG_MISSING
  | typeof DATA_MISMATCH;

/** A file or input that a retry would read the same way again. */
export function badInput(message: string, type: BadInputType): ApplicationFailure {
  return ApplicationFailure.create({ message, type, nonRetryable: true });
}
