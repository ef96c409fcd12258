// @ts-check
/** Which epochs a run offers: the validation Pareto front and the selected checkpoint. */

/** @typedef {{ epoch: number, fail_to_pass_count: number, pass_to_fail_count: number }} EpochMetrics */

/**
 * Epochs no other epoch dominates on (fail_to_pass, pass_to_fail); ties all stay.
 * @param {readonly EpochMetrics[]} epochs
 * @returns {number[]}
 */
export function paretoEpochs(epochs) {
  /** @param {EpochMetrics} a @param {EpochMetrics} b */
  const dominates = (a, b) =>
    a.fail_to_pass_count <= b.fail_to_pass_count &&
    a.pass_to_fail_count <= b.pass_to_fail_count &&
    (a.fail_to_pass_count < b.fail_to_pass_count || a.pass_to_fail_count < b.pass_to_fail_count);
  return epochs.filter((e) => !epochs.some((other) => dominates(other, e))).map((e) => e.epoch);
}

/**
 * Fewest validation errors, then fewest Fail->Pass, then the earliest epoch.
 * @param {readonly EpochMetrics[]} epochs
 * @returns {EpochMetrics}
 */
export function selectEpoch(epochs) {
  const total = (/** @type {EpochMetrics} */ e) => e.fail_to_pass_count + e.pass_to_fail_count;
  const [first, ...rest] = epochs;
  if (!first) throw new Error('no epochs to select from');
  return rest.reduce((best, e) => {
    const better =
      total(e) < total(best) || (total(e) === total(best) && e.fail_to_pass_count < best.fail_to_pass_count);
    return better ? e : best;
  }, first);
}
