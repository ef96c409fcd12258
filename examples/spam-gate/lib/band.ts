import { round6 } from './random.js';
import type { Scored } from './metrics.js';

/** Margins inside [low, high] are neither passed nor failed but rejected (sent to a person). */
export interface Band {
  readonly low: number;
  readonly high: number;
  readonly chosen_on: 'validation';
}

/** Counts after the band: a fail above `high` got through, a pass below `low` was failed. */
export interface Decided {
  readonly fail_to_pass_count: number;
  readonly fail_count: number;
  readonly fail_to_pass_rate: number;
  readonly pass_to_fail_count: number;
  readonly pass_correct_count: number;
  readonly pass_count: number;
  readonly pass_to_fail_rate: number;
  readonly rejected_total: number;
}

// Costs in tenths keep the comparison exact: an error costs 10, a rejection 3.
const ERROR_COST = 10;
const REJECT_COST = 3;
const MAX_REJECTED = 0.25;

interface Edge {
  readonly edge: number;
  readonly cost: number;
  readonly rejected: number;
}

/**
 * Edge choices on one side of zero, nearest first: 0 (reject nothing on this side), then
 * midway past each further distinct margin. `wrong(target)` says which target is an error
 * when left outside the band on this side.
 */
function edges(side: readonly Scored[], wrong: number, limit: number): Edge[] {
  let errors = side.filter((row) => row.target === wrong).length;
  const choices: Edge[] = [{ edge: 0, cost: ERROR_COST * errors, rejected: 0 }];
  let rejected = 0;
  for (let i = 0; i < side.length && rejected < limit;) {
    const value = side[i]?.margin ?? 0;
    while (i < side.length && side[i]?.margin === value) {
      if (side[i]?.target === wrong) errors -= 1;
      rejected += 1;
      i += 1;
    }
    if (rejected > limit) break;
    const next = side[i]?.margin;
    // Midway between two six-decimal margins is exact at seven decimals: no float noise.
    const edge = Math.round((next === undefined ? value + Math.sign(value) : (value + next) / 2) * 1e7) / 1e7;
    choices.push({ edge, cost: ERROR_COST * errors + REJECT_COST * rejected, rejected });
  }
  return choices;
}

/**
 * The band with the least cost on the given (validation) scores: each error costs 1, each
 * rejected mail 0.3, at most a quarter of the mails rejected; ties go to fewer rejections.
 */
export function chooseBand(rows: readonly Scored[]): Band {
  const limit = Math.floor(MAX_REJECTED * rows.length);
  const zeros = rows.filter((row) => row.margin === 0).length;
  const below = rows.filter((row) => row.margin < 0).sort((a, b) => b.margin - a.margin);
  const above = rows.filter((row) => row.margin > 0).sort((a, b) => a.margin - b.margin);
  let best = { low: 0, high: 0, cost: Infinity, rejected: Infinity };
  for (const low of edges(below, 1, limit)) {
    for (const high of edges(above, 0, limit)) {
      const rejected = zeros + low.rejected + high.rejected;
      if (rejected > limit && rejected > zeros) continue;
      const cost = low.cost + high.cost + REJECT_COST * zeros;
      if (cost < best.cost || (cost === best.cost && rejected < best.rejected)) {
        best = { low: low.edge, high: high.edge, cost, rejected };
      }
    }
  }
  return { low: best.low, high: best.high, chosen_on: 'validation' };
}

export function decide(rows: readonly Scored[], band: Pick<Band, 'low' | 'high'>): Decided {
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
