// Section 8: one generation feeding a fleet. Lanes in several worker processes (the scale-out
// set-up), one dev server, one orchestrator process; per size (16, 32, 64 lanes) a generation of
// sleep-based jobs on the bench stack (bench/lib/fleet-step.sh), then ever shorter jobs on the
// largest size until dispatch p99 passes 1 s. Dispatch is read from the step trace as the
// utilisation section reads it (a slot freed -> its next job's first step starts); the
// generation's workflow tasks from its history; CPU from /proc. See bench/README.md, "Fleet".
// The steps: fleet/with-fleet.ts (the fleet and the measure of one generation), fleet/loop.ts
// (its loop folder and trace), fleet/run-stats.ts (what trace and /proc come to), fleet/figures.ts.
import type { BenchContext } from '../lib/context.js';
import type { Figure } from '../lib/figures.js';
import { dispatchCeiling } from '../lib/fleet-math.js';
import type { BenchOptions } from '../lib/options.js';
import { startBenchCluster } from '../lib/cluster-server.js';
import { ceilingFigures, ceilingStepFigure, clusterFigures, fastReadsFigures, sizeFigures } from './fleet/figures.js';
import { FAST_TRANSFER_READS, P99_LIMIT_MS, TRANSFER_READS_KEY, type FleetRun } from './fleet/fleet-run.js';
import { withFleet, type Fleet } from './fleet/with-fleet.js';

export async function runFleet(
  ctx: BenchContext,
): Promise<{ figures: Figure[]; details: Record<string, unknown>; notes: string[] }> {
  const { options } = ctx;
  const largest = Math.max(...options.fleetSizes);
  const { sizes, steps, warnings } = await withFleet(ctx, 'fleet', {}, async (fleet) => {
    const sizes = await measureSizes(fleet, options);
    const steps = await searchCeiling(fleet, options, largest);
    return { sizes, steps, warnings: await fleet.historyWarnings() };
  });
  const atFast = await measureFastReads(ctx, largest);
  const onCluster = await measureOnCluster(ctx, largest);
  const ceiling = dispatchCeiling(
    [...sizes, ...steps].map((run) => ({ ratePerS: run.ratePerS, p99Ms: run.dispatch.p99 })),
    P99_LIMIT_MS,
  );
  const ours = sizes.find((run) => run.lanes === largest);
  const figures: Figure[] = [
    ...sizes.flatMap(sizeFigures),
    ...fastReadsFigures(atFast, ours, largest),
    ...clusterFigures(onCluster, ours, largest),
    ...steps.map(ceilingStepFigure),
    ...ceilingFigures(ceiling, [...sizes, ...steps]),
  ];
  const details = {
    processes: options.fleetProcesses,
    sizes,
    steps,
    atFastTransferReads: atFast,
    onCluster,
    ceiling: { ...ceiling, limitMs: P99_LIMIT_MS },
    serverHistoryWarnings: warnings,
  };
  const notes =
    'error' in onCluster ? [`fleet on a cluster: not measured (${onCluster.error.split('\n')[0] ?? ''})`] : [];
  return { figures, details, notes };
}

/** One generation per size in --fleet-sizes, at --fleet-job-ms. */
async function measureSizes(fleet: Fleet, options: BenchOptions): Promise<FleetRun[]> {
  const sizes: FleetRun[] = [];
  for (const size of options.fleetSizes)
    sizes.push(
      await fleet.measure({
        name: `fleet-${size}`,
        size,
        jobMs: options.fleetJobMs,
        rounds: options.fleetRounds,
        budgetS: 600,
      }),
    );
  return sizes;
}

/** The load steps on the largest size, ever shorter jobs (--fleet-steps), until a step's dispatch p99 passes the limit. */
async function searchCeiling(fleet: Fleet, options: BenchOptions, largest: number): Promise<FleetRun[]> {
  const steps: FleetRun[] = [];
  for (const [min, max] of options.fleetSteps) {
    // About 20 s of offered work a step, at most ~800 jobs, at least four rounds.
    const mean = (min + max) / 2 + 50;
    const rounds = Math.max(4, Math.min(Math.ceil(20_000 / mean), Math.ceil(800 / largest)));
    const step = await fleet.measure({
      name: `fleet-${largest}-${min}-${max}`,
      size: largest,
      jobMs: [min, max],
      rounds,
      budgetS: 240,
    });
    steps.push(step);
    if (step.dispatch.p99 > P99_LIMIT_MS) break;
  }
  return steps;
}

/**
 * Side by side: the largest size again, on a server whose one history shard may read its transfer
 * queue 1000 times a second instead of Temporal's 20 (what that trade buys and costs, in this run).
 */
async function measureFastReads(ctx: BenchContext, largest: number): Promise<FleetRun> {
  const { options } = ctx;
  return withFleet(ctx, 'fleet-fast-reads', { [TRANSFER_READS_KEY]: FAST_TRANSFER_READS }, (fastReads) =>
    fastReads.measure({
      name: `fleet-${largest}-fast-reads`,
      size: largest,
      jobMs: options.fleetJobMs,
      rounds: options.fleetRounds,
      budgetS: 600,
    }),
  );
}

/**
 * Side by side: the largest size again, on a self-hosted cluster (scripts/cluster/: PostgreSQL,
 * 4 history shards, Temporal's 20 transfer reads a second per shard). Where the cluster cannot be
 * built or started (no Go, no PostgreSQL), the reason instead.
 */
async function measureOnCluster(ctx: BenchContext, largest: number): Promise<FleetRun | { error: string }> {
  const { options } = ctx;
  try {
    return await withFleet(
      ctx,
      'fleet-cluster',
      {},
      (fleet) =>
        fleet.measure({
          name: `fleet-${largest}-cluster`,
          size: largest,
          jobMs: options.fleetJobMs,
          rounds: options.fleetRounds,
          budgetS: 600,
        }),
      () => startBenchCluster(ctx.cli, ctx.log),
    );
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}
