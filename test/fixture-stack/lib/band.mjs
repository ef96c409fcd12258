// @ts-check
/**
 * The reject band: margins inside [low, high] are neither passed nor failed. It is chosen
 * on validation scores (each error costs 1, each rejected item 0.3, at most a quarter of the
 * items rejected) and then applied to the evaluated role's scores.
 */
import { round6 } from './random.mjs';

/** @typedef {import('./metrics.mjs').Scored} Scored */
/** @typedef {{ low: number, high: number, chosen_on: 'validation' }} Band */

const STEPS = 10; // band edges move in steps of 0.1 up to 1.0 either side of 0
const REJECT_COST = 0.3;
const MAX_REJECTED = 0.25;

/**
 * @param {readonly Scored[]} rows
 * @returns {Band}
 */
export function chooseBand(rows) {
  let best = { low: 0, high: 0, cost: Infinity, rejected: 0 };
  for (let down = 0; down <= STEPS; down += 1) {
    for (let up = 0; up <= STEPS; up += 1) {
      const band = { low: -down / 10, high: up / 10, chosen_on: /** @type {const} */ ('validation') };
      const d = decide(rows, band);
      if (d.rejected_total > MAX_REJECTED * rows.length) continue;
      const cost = d.fail_to_pass_count + d.pass_to_fail_count + REJECT_COST * d.rejected_total;
      if (cost < best.cost || (cost === best.cost && d.rejected_total < best.rejected)) {
        best = { low: band.low, high: band.high, cost, rejected: d.rejected_total };
      }
    }
  }
  return { low: best.low, high: best.high, chosen_on: 'validation' };
}

/**
 * Counts after the band: a fail above `high` got through, a pass below `low` was failed.
 * @param {readonly Scored[]} rows
 * @param {Band} band
 */
export function decide(rows, band) {
  let failCount = 0;
  let passCount = 0;
  let failToPass = 0;
  let passToFail = 0;
  let rejected = 0;
  for (const row of rows) {
    if (row.target === 1) passCount += 1;
    else failCount += 1;
    if (row.margin >= band.low && row.margin <= band.high) rejected += 1;
    else if (row.target === 1 && row.margin < band.low) passToFail += 1;
    else if (row.target !== 1 && row.margin > band.high) failToPass += 1;
  }
  return {
    fail_to_pass_count: failToPass,
    fail_count: failCount,
    fail_to_pass_rate: failCount === 0 ? 0 : round6(failToPass / failCount),
    pass_to_fail_count: passToFail,
    pass_correct_count: passCount - passToFail,
    pass_count: passCount,
    pass_to_fail_rate: passCount === 0 ? 0 : round6(passToFail / passCount),
    rejected_total: rejected,
  };
}
