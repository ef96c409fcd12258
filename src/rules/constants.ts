/** Training seeds count up from here, one per round, shared by every candidate of the round. */
export const TRAIN_SEED_BASE = 20260928;

/** Split seeds count up from here, one per generation (the Python loop's `--base-seed` default). */
export const DEFAULT_BASE_SEED = 20261200;

/** Strict: a champion picked on the test set regresses on reserve by selection alone. */
export const ALPHA = 0.01;

/** From this round on, every finished round also scores the ensemble of all selected checkpoints. */
export const ROUND_ENSEMBLE_FROM = 3;

/** AUC saturated at 24 members while scoring cost grows with every member. */
export const ROUND_ENSEMBLE_MAX = 24;

/** Manifest file name of a generation's teacher-member ensemble. */
export const MANIFEST_NAME = 'teacher-members.json';

/** Default teacher file, relative to the repository root; `{generation}` is expanded. */
export const TEACHER_PATH = 'artifacts/teachers/gen-{generation}/insample.jsonl';

/** Passed verbatim to the split command, hence a string. */
export const VALIDATION_FRACTION = '0.10';

/** Passed verbatim to both carve commands (test, then reserve), hence a string. */
export const HELD_OUT_FRACTION = '0.10';

/** Run status that marks a synthetic ensemble run (its config path is the manifest). */
export const ENSEMBLE_STATUS = 'ensemble';
