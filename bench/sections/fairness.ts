// Section 12: several loops on one fleet (issue 45). Two loops on the same lanes, one with 10x the
// other's trainings, measured side by side in one bench run under three server settings: arrival
// order (the classic matcher: how loops shared a lane before priority and fairness), priority with
// fairness off, and priority with fairness (temporal-dev.yaml). Per setting: the small loop's
// reserve-check and evaluation waits, its rounds an hour, and both loops' shares of lane time;
// with fairness, the shares against the loops' fairness weights (goal within 10%) and the small
// loop's reserve checks and evaluations started within one job's length of being due.
import type { BenchContext } from '../lib/context.js';
import {
  contendedShares,
  contendedStarts,
  laneShares,
  meanHeld,
  roundsPerHour,
  shareDeviationPercent,
  waits,
  weightShares,
  type LaneStep,
} from '../lib/fairness-math.js';
import { figure, type Figure } from '../lib/figures.js';
import { percentile } from '../lib/stats.js';
import { BIG, MODES, runTwoLoops, SMALL, type ModeRun, type TwoLoopsSpec } from './fairness/two-loops.js';

const SECTION = 'fairness';

/** p50, p95 and max of a list of waits (null for none). */
function spread(values: readonly number[]): {
  p50: number | null;
  p95: number | null;
  max: number | null;
  count: number;
} {
  if (values.length === 0) return { p50: null, p95: null, max: null, count: 0 };
  return {
    p50: percentile([...values], 50),
    p95: percentile([...values], 95),
    max: Math.max(...values),
    count: values.length,
  };
}

/** The figures of one setting; with fairness, goals on the shares and on the small loop's waits. */
function modeFigures(run: ModeRun, spec: TwoLoopsSpec): { figures: Figure[]; summary: Record<string, unknown> } {
  const { mode, window, steps } = run;
  const fair = mode.name === 'fairness';
  const label = mode.label;
  const jobMs = meanHeld(steps, 'trainRun');
  const withinJob = fair && jobMs !== null ? { op: '<=' as const, value: jobMs } : null;
  const reserve = spread(waits(steps, SMALL, 'evaluateReserve', window, 'child-start'));
  const evaluation = spread(waits(steps, SMALL, 'evaluateRun', window));
  const shares = laneShares(steps, window);
  const contended = contendedShares(steps, [BIG, SMALL], window);
  const starts = contendedStarts(steps, window);
  const expected = weightShares(
    new Map([
      [BIG, spec.big.weight],
      [SMALL, spec.small.weight],
    ]),
  );
  const share = (loop: string) => contended.shares.get(loop) ?? 0;
  const deviation = (loop: string) => shareDeviationPercent(share(loop), expected.get(loop) ?? 1);
  const within10 = fair ? { op: '<=' as const, value: 10 } : null;
  const smallRounds = roundsPerHour(steps, SMALL, spec.small.candidates, window);
  const bigRounds = roundsPerHour(steps, BIG, spec.big.candidates, window);
  const jobNote = `one job: ${jobMs === null ? '?' : (jobMs / 1000).toFixed(2)} s (mean training)`;
  const contendedNote = `${(contended.contendedMs / 1000).toFixed(0)} lane-seconds with both loops queued; over the whole window ${(100 * (shares.get(SMALL) ?? 0)).toFixed(1)}%`;
  const figures = [
    figure(
      SECTION,
      `${label}: small loop's reserve-check wait, due to start on a lane, p50`,
      reserve.p50,
      'ms',
      null,
      `${reserve.count} reserve checks in the window`,
    ),
    figure(SECTION, `${label}: the same, longest`, reserve.max, 'ms', withinJob, jobNote),
    figure(SECTION, `${label}: small loop's evaluation wait, training end to start, p50`, evaluation.p50, 'ms'),
    figure(SECTION, `${label}: the same, p95`, evaluation.p95, 'ms', withinJob, `${evaluation.count} evaluations`),
    figure(SECTION, `${label}: the same, longest`, evaluation.max, 'ms'),
    figure(
      SECTION,
      `${label}: small loop's rounds an hour`,
      smallRounds,
      '',
      null,
      `big loop: ${bigRounds.toFixed(0)}`,
    ),
    figure(
      SECTION,
      `${label}: small loop's share of lane time while both queued (weight share ${(100 * (expected.get(SMALL) ?? 0)).toFixed(0)}%)`,
      100 * share(SMALL),
      '%',
      null,
      contendedNote,
    ),
    figure(
      SECTION,
      `${label}: small loop's share of lane steps started while the other loop queued`,
      100 * (starts.get(SMALL) ?? 0),
      '%',
      null,
      'steps of any kind and length: what the server divides by weight',
    ),
    figure(SECTION, `${label}: small loop's share off its weight's`, deviation(SMALL), '%', within10),
    figure(SECTION, `${label}: big loop's share off its weight's`, deviation(BIG), '%', within10),
  ];
  return {
    figures,
    summary: {
      window,
      jobMs,
      reserve,
      evaluation,
      shares: Object.fromEntries(shares),
      contendedShares: Object.fromEntries(contended.shares),
      contendedMs: contended.contendedMs,
      contendedStarts: Object.fromEntries(starts),
      smallRounds,
      bigRounds,
    },
  };
}

/** Lane steps as the details file keeps them: times relative to the window's start. */
const relative = (steps: readonly LaneStep[], start: number) =>
  steps.map((step) => ({
    ...step,
    childStartMs: step.childStartMs - start,
    scheduledMs: step.scheduledMs - start,
    startedMs: step.startedMs === null ? null : step.startedMs - start,
    closedMs: step.closedMs === null ? null : step.closedMs - start,
  }));

export async function runFairness(
  ctx: BenchContext,
): Promise<{ figures: Figure[]; details: Record<string, unknown>; notes: string[] }> {
  const { options } = ctx;
  const spec: TwoLoopsSpec = {
    lanes: 2,
    laneSlots: 2,
    jobMs: options.fairnessJobMs,
    windowMs: options.fairnessWindowS * 1000,
    warmUpMs: options.fairnessJobMs[1],
    big: { candidates: 20, slotsPerLane: 10, weight: 1 },
    small: { candidates: 2, slotsPerLane: 3, weight: 2, saturationEvals: 4 },
  };
  const figures: Figure[] = [];
  const details: Record<string, unknown> = { spec };
  for (const mode of MODES) {
    const run = await runTwoLoops(ctx, mode, spec);
    const outcome = modeFigures(run, spec);
    figures.push(...outcome.figures);
    details[mode.name] = { ...outcome.summary, steps: relative(run.steps, run.window.start) };
    ctx.log(`fairness: ${mode.label}: ${JSON.stringify(outcome.summary)}`);
  }
  const notes = [
    `fairness: ${spec.lanes} lanes of ${spec.laneSlots} slots shared by two loops: big (${spec.big.candidates} candidates a round, ` +
      `${spec.big.slotsPerLane} slots a lane of its own, weight ${spec.big.weight}) and small (${spec.small.candidates} candidates, ` +
      `${spec.small.slotsPerLane} slots a lane, weight ${spec.small.weight}, a reserve check every ${spec.small.saturationEvals} test evals); ` +
      `trainings ${spec.jobMs[0]}-${spec.jobMs[1]} ms, ${spec.windowMs / 1000} s measured per setting`,
  ];
  return { figures, details, notes };
}
