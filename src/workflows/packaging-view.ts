import type { PackageChampion } from '../activities/types.js';

/** What the `packaging` query returns (the package rows come from `champion-loop ledger`). */
export interface PackagingView {
  readonly running: PackageChampion | null;
  readonly queued: PackageChampion | null;
}
