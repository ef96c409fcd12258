import type { GenerationRow, LedgerRow, PackageRow, ParetoSetRow, ReserveCheckRow } from '../../ledger/rows.js';
import { reserveCheckPower } from '../../ledger/reserve-check-power.js';
import { championChangeReason } from '../../rules/champion-change.js';
import type { ReservePower } from '../../rules/reserve-power.js';
import { testReuse, type TestReuse } from '../../rules/test-reuse.js';
import type { CompareKey, Counts, EvalRow, EvalSummary } from '../../rules/types.js';

// What the report shows, folded from ledger rows alone (pure): one entry per generation.

/** Both error counts with their denominators. */
export interface ErrorCounts {
  readonly f2p: number;
  readonly failCount: number;
  readonly p2f: number;
  readonly passCount: number;
}

/** One test evaluation of one checkpoint: a point of the plot. */
export interface PlotPoint {
  readonly key: string;
  readonly runId: string;
  readonly candidate: string;
  readonly checkpointName: string;
  readonly epoch: number | null;
  readonly counts: ErrorCounts;
  readonly finished: string;
}

/** A champion change. */
export interface ChampionEntry {
  readonly time: string;
  readonly runId: string;
  readonly checkpointName: string;
  readonly epoch: number | null;
  readonly counts: ErrorCounts | null;
  /** What decided the change: the rule, or the tie-break on the front (championChangeReason). */
  readonly reason: string;
}

/** A reserve check and its verdict. */
export interface ReserveEntry {
  readonly time: string;
  readonly runId: string;
  readonly checkpointName: string;
  readonly testEvals: number;
  readonly test: ErrorCounts | null;
  readonly reserve: ErrorCounts | null;
  readonly f2pP: number | undefined;
  readonly p2fP: number | undefined;
  readonly verdict: ReserveCheckRow['verdict'];
  readonly stale: boolean;
  /** The least rise per class the check detects with 80% power; null when it could not run. */
  readonly power: ReservePower | null;
}

/** One generation: how it opened, every test point, the front, champions, reserve checks. */
export interface GenerationReport {
  readonly generation: number;
  readonly opening: Pick<GenerationRow, 'reason' | 'started' | 'split_seed'> | null;
  readonly points: PlotPoint[];
  /** Test evals that failed or lack the compared counts: not plotted. */
  readonly unplotted: number;
  readonly front: PlotPoint[];
  readonly champion: PlotPoint | null;
  readonly champions: ChampionEntry[];
  readonly reserveChecks: ReserveEntry[];
  readonly runs: Readonly<Record<string, number>>;
  /**
   * GPU time of its training runs (their rows' `gpu_seconds`), and how many runs have it; 0 and 0 on
   * CPU lanes. What it cost (their `gpu_usd`, loop.yaml `usd_per_gpu_hour`) and how many runs have a price.
   */
  readonly gpu: { readonly seconds: number; readonly runs: number; readonly usd: number; readonly pricedRuns: number };
  readonly packages: PackageRow[];
  /** The test set's reads by the generation and the champion's optimism they may cause (docs/behaviour.md 6.1); null without a champion. */
  readonly testReuse: TestReuse | null;
  /** Test evals recorded after the generation's test_budget was spent (they judged nothing). */
  readonly readsPastBudget: number;
}

export interface ReportModel {
  /** Which counts champions and fronts are compared on: the report's `result`, or `decided` (band decisions). */
  readonly compare: CompareKey;
  /** Oldest first. */
  readonly generations: GenerationReport[];
}

type Block = (Counts & { readonly fail_count: number; readonly pass_count: number }) | null | undefined;

function countsOf(block: Block): ErrorCounts | null {
  return block
    ? {
        f2p: block.fail_to_pass_count,
        failCount: block.fail_count,
        p2f: block.pass_to_fail_count,
        passCount: block.pass_count,
      }
    : null;
}

const keyOf = (row: { run_id: string; checkpoint_name: string }): string => `${row.run_id}/${row.checkpoint_name}`;

interface Building {
  generation: number;
  opening: GenerationReport['opening'];
  points: PlotPoint[];
  unplotted: number;
  front: ParetoSetRow | null;
  champion: EvalSummary | null;
  champions: { row: EvalSummary; time: string; reason: string }[];
  reserveChecks: ReserveEntry[];
  runs: Record<string, number>;
  gpu: { seconds: number; runs: number; usd: number; pricedRuns: number };
  packages: PackageRow[];
  readsPastBudget: number;
}

/**
 * The report's model of a ledger: rows are grouped by their generation field (a run finishing
 * after its generation advanced still belongs to it), and fronts and champions are the ledger's
 * own pareto_set and champion rows, never recomputed.
 */
export function reportModel(rows: readonly LedgerRow[], compare: CompareKey): ReportModel {
  const byGeneration = new Map<number, Building>();
  const generation = (number: number): Building => {
    let found = byGeneration.get(number);
    if (!found) {
      found = {
        generation: number,
        opening: null,
        points: [],
        unplotted: 0,
        front: null,
        champion: null,
        champions: [],
        reserveChecks: [],
        runs: {},
        gpu: { seconds: 0, runs: 0, usd: 0, pricedRuns: 0 },
        packages: [],
        readsPastBudget: 0,
      };
      byGeneration.set(number, found);
    }
    return found;
  };
  for (const row of rows) {
    const into = generation(row.generation);
    switch (row.type) {
      case 'generation':
        into.opening = { reason: row.reason, started: row.started, split_seed: row.split_seed };
        break;
      case 'run':
        into.runs[row.status] = (into.runs[row.status] ?? 0) + 1;
        if (row.gpu_seconds !== undefined) {
          into.gpu.seconds += row.gpu_seconds;
          into.gpu.runs += 1;
        }
        if (row.gpu_usd !== undefined) {
          into.gpu.usd += row.gpu_usd;
          into.gpu.pricedRuns += 1;
        }
        break;
      case 'eval':
        if (row.role === 'test') addPoint(into, row, compare);
        if (row.test_budget === 'spent') into.readsPastBudget += 1;
        break;
      case 'pareto_set':
        into.front = row;
        break;
      case 'champion':
        into.champion = row.champion;
        into.champions.push({ row: row.champion, time: row.finished, reason: championChangeReason(row, compare) });
        break;
      case 'reserve_check':
        into.reserveChecks.push(reserveEntry(row));
        break;
      case 'package':
        into.packages.push(row);
        break;
      default:
        break;
    }
  }
  const generations = [...byGeneration.values()]
    .sort((a, b) => a.generation - b.generation)
    .map((building) => finish(building, compare));
  return { compare, generations };
}

function addPoint(into: Building, row: EvalRow, compare: CompareKey): void {
  const counts = row.status === 'ok' ? countsOf(compare === 'decided' ? row.decided : row.result) : null;
  if (counts === null) {
    into.unplotted += 1;
    return;
  }
  into.points.push({
    key: keyOf(row),
    runId: row.run_id,
    candidate: row.candidate,
    checkpointName: row.checkpoint_name,
    epoch: row.epoch,
    counts,
    finished: row.finished,
  });
}

function reserveEntry(row: ReserveCheckRow): ReserveEntry {
  const decided = row.compared === 'decided';
  return {
    time: row.finished,
    runId: row.run_id,
    checkpointName: row.checkpoint_name,
    testEvals: row.test_evals,
    test: countsOf(decided ? row.test_decided : row.test),
    reserve: countsOf(decided ? row.reserve_decided : row.reserve),
    f2pP: row.f2p_p,
    p2fP: row.p2f_p,
    verdict: row.verdict,
    stale: row.stale_champion === true,
    power: reserveCheckPower(row),
  };
}

function finish(building: Building, compare: CompareKey): GenerationReport {
  // The latest point of a checkpoint wins (a re-scored checkpoint is the same checkpoint).
  const points = new Map(building.points.map((point) => [point.key, point]));
  const pointOf = (summary: EvalSummary): PlotPoint | null => {
    const found = points.get(keyOf(summary));
    if (found) return found;
    // A summary carries the report's result only: without the eval row, decided counts are unknown.
    const counts = compare === 'result' ? countsOf(summary.result) : null;
    return counts
      ? {
          key: keyOf(summary),
          runId: summary.run_id,
          candidate: summary.candidate,
          checkpointName: summary.checkpoint_name,
          epoch: summary.epoch,
          counts,
          finished: '',
        }
      : null;
  };
  return {
    generation: building.generation,
    opening: building.opening,
    points: building.points,
    unplotted: building.unplotted,
    front: (building.front?.members ?? []).map(pointOf).filter((point): point is PlotPoint => point !== null),
    champion: building.champion ? pointOf(building.champion) : null,
    champions: building.champions.map(({ row, time, reason }) => ({
      time,
      reason,
      runId: row.run_id,
      checkpointName: row.checkpoint_name,
      epoch: row.epoch,
      counts: pointOf(row)?.counts ?? null,
    })),
    reserveChecks: building.reserveChecks,
    runs: building.runs,
    gpu: building.gpu,
    packages: building.packages,
    // Every plotted point is a read the fold counted (an ok test eval with the compared counts).
    testReuse: testReuse(building.points.length, building.champion),
    readsPastBudget: building.readsPastBudget,
  };
}
