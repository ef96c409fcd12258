/** One epoch's validation counts, as training weighs its epochs. */
export interface EpochCounts {
  readonly epoch: number;
  readonly fail_to_pass_count: number;
  readonly pass_to_fail_count: number;
}

function dominates(a: EpochCounts, b: EpochCounts): boolean {
  return (
    a.fail_to_pass_count <= b.fail_to_pass_count &&
    a.pass_to_fail_count <= b.pass_to_fail_count &&
    (a.fail_to_pass_count < b.fail_to_pass_count || a.pass_to_fail_count < b.pass_to_fail_count)
  );
}

/** Epochs no other epoch dominates on (Fail->Pass, Pass->Fail); ties all stay. */
export function paretoEpochs(epochs: readonly EpochCounts[]): number[] {
  return epochs.filter((e) => !epochs.some((other) => dominates(other, e))).map((e) => e.epoch);
}

/** Fewest validation errors, then fewest Fail->Pass, then the earliest epoch. */
export function selectEpoch<T extends EpochCounts>(epochs: readonly T[]): T {
  const total = (e: EpochCounts): number => e.fail_to_pass_count + e.pass_to_fail_count;
  const [first, ...rest] = epochs;
  if (first === undefined) throw new Error('no epochs to select from');
  return rest.reduce((best, e) => {
    const better =
      total(e) < total(best) || (total(e) === total(best) && e.fail_to_pass_count < best.fail_to_pass_count);
    return better ? e : best;
  }, first);
}
