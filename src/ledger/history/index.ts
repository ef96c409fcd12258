// Reading the loop's workflows back from their histories, for a ledger rebuilt from history
// alone (the export, the ledger copy's keeper). Only this folder knows how the SDK writes a
// workflow's history: the order it hands a task's events to the code, and its patch markers.
export type { HistoryEvent } from './events.js';
export { generationRunOf } from './generation-run.js';
export { packagingRunOf } from './packaging-run.js';
