import { FileProblemError } from './problems.js';

/** A loop.yaml or candidates.yaml that cannot be used as written. */
export class ConfigError extends FileProblemError {
  override readonly name = 'ConfigError';
}
