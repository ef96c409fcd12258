import type { PackageChampion } from '../activities/types.js';
import type { RegistryView } from './registrations.js';

/** What the `packaging` query returns (the package rows come from `champion-loop ledger`). */
export interface PackagingView {
  readonly running: PackageChampion | null;
  readonly queued: PackageChampion | null;
  /** With loop.yaml `mlflow:`: registrations waiting or retrying, and how the last one ended. */
  readonly registry?: RegistryView;
}
