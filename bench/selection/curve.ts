// The trade-off curve of `npm run sim:selection`: the tunable rules at several settings each, run
// over the same generations as the table, so a team can see what a setting buys in optimism and
// promotions and what it costs in true regret. Pure data.
import type { RuleName } from './rules.js';

/** The setting a curve point changes: alpha, the Ladder's margin, the budget's reads, the confirmation set's size. */
type CurveSetting = 'alpha' | 'ladderMargin' | 'budgetReads' | 'confirmationItems';

export interface CurvePoint {
  readonly rule: RuleName;
  readonly setting: CurveSetting;
  readonly value: number;
}

const points = (rule: RuleName, setting: CurveSetting, values: readonly number[]): CurvePoint[] =>
  values.map((value) => ({ rule, setting, value }));

export const CURVE: readonly CurvePoint[] = [
  ...points('paired', 'alpha', [0.01, 0.05, 0.2, 0.5]),
  ...points('alpha-spending', 'alpha', [0.05, 0.2, 0.5]),
  ...points('ladder', 'ladderMargin', [0.005, 0.01, 0.02, 0.04]),
  ...points('budget', 'budgetReads', [10, 25, 50, 100, 200]),
  ...points('confirmed', 'confirmationItems', [250, 500, 1000, 2000]),
];

/** A point's name in the table and the results file: `paired alpha=0.2`. */
export const curveLabel = (point: CurvePoint): string => `${point.rule} ${point.setting}=${point.value}`;
