import { ApplicationFailure } from '@temporalio/common';

/** Failure type of a command that cannot be started; workflows list it as non-retryable. */
export const COMMAND_NOT_FOUND = 'CommandNotFound';

/** Failure type of a step whose command ran and failed (retryable: a crash may not repeat). */
export const STEP_FAILED = 'StepFailed';

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

/** A file or input that a retry would read the same way again. */
export function badInput(message: string, type: string): ApplicationFailure {
  return ApplicationFailure.create({ message, type, nonRetryable: true });
}
