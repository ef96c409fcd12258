import { FileProblemError } from '../config/problems.js';

/** A file the training stack wrote (report, scores, selection, ...) that breaks the subprocess contract. */
export class ContractError extends FileProblemError {
  override readonly name = 'ContractError';
}
