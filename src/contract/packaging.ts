// The packaging workflow as the activities that start, feed and stop it reach it (requestPackaging,
// stopPackaging): its type name, its input, the names of the signals they send and the shape of
// a champion it takes. The workflow (src/workflows/packaging.ts) is built on the same names.
import type { LoopPaths, PackageChampion } from '../activities/types.js';
import type { ArtifactSettings } from '../artifacts/store-settings.js';
import type { LoopConfig } from '../config/loop-config.js';
import type { PackagingState } from '../ledger/packaging-fold.js';
import type { MlflowSettings } from '../registry/mlflow-settings.js';

/** The packaging workflow's type name (its function's name in the workflow bundle). */
export const PACKAGING_WORKFLOW = 'packaging';

/** The packaging workflow itself, as a client starts it. */
export type PackagingWorkflow = (input: PackagingInput) => Promise<PackagingState | undefined>;

/** A new champion for the packaging workflow (newest queued wins). */
export const CHAMPION_SIGNAL = 'champion';

/** Stop at once (the packaging and the generation workflow both take it). */
export const STOP_NOW_SIGNAL = 'stopNow';

export interface PackagingInput {
  readonly loopId: string;
  readonly paths: LoopPaths;
  readonly command: readonly string[];
  readonly timeouts: LoopConfig['timeouts'];
  readonly retries: LoopConfig['retries'];
  /** What a previous run of this workflow left running or queued (continue-as-new). */
  readonly carry?: PackagingState;
  /** loop.yaml `mlflow:`: register each packaged champion there (docs/integrations.md, "Model registry (MLflow)"). */
  readonly mlflow?: MlflowSettings;
  /** loop.yaml `artifacts:`: each package is uploaded there, and registered by its s3:// URI (docs/artifacts.md). */
  readonly artifacts?: ArtifactSettings;
}

function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A champion for packaging, as the generation hands it over. */
export function isPackageChampion(value: unknown): value is PackageChampion {
  return (
    isRecord(value) &&
    typeof value.generation === 'number' &&
    typeof value.run_id === 'string' &&
    typeof value.checkpoint_name === 'string' &&
    typeof value.checkpoint === 'string' &&
    typeof value.config_path === 'string' &&
    typeof value.eval_json === 'string' &&
    typeof value.requested === 'string'
  );
}
