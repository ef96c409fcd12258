// Sections 1, 2 and 6: jobs of controlled duration (the fixture stack, training sleeps a seeded
// duration per candidate) on traced lanes. From one run: the dispatch latency per lane, the
// train-to-evaluate gap, where that time goes (histories), the makespan against its bounds,
// and the Python loop's polling policy (lib/seed-policy.ts) simulated on the same trace.
// The steps live in utilisation/: plan (lanes, candidates, folder), bounded-run (workers and the
// run), lane-jobs (the trace as jobs, the makespan, the seed policy), where-time-goes (histories),
// figures, and report (notes and details).
import { processStartBaseline } from '../lib/baseline.js';
import { withBenchSession, type BenchSession } from '../lib/bench-session.js';
import type { ArtifactSettings } from '../../src/artifacts/store-settings.js';
import { storeTraffic, type StoreTraffic } from '../lib/store-traffic.js';
import type { BenchContext } from '../lib/context.js';
import type { Figure } from '../lib/figures.js';
import { runMeasured, startWorkers, stopWorkers } from './utilisation/bounded-run.js';
import { utilisationFigures } from './utilisation/figures.js';
import { makespanOf, readLaneJobs, seedPolicyRun } from './utilisation/lane-jobs.js';
import type { UtilisationMeasures } from './utilisation/measures.js';
import { planLoop, serverName, type Placement } from './utilisation/plan.js';
import { doneLine, stageNotes, stageTables, utilisationDetails } from './utilisation/report.js';
import { whereTheTimeGoes } from './utilisation/where-time-goes.js';

export type { Placement } from './utilisation/plan.js';

export interface UtilisationOutcome {
  readonly figures: Figure[];
  readonly details: Record<string, unknown>;
  /** Text printed after the figures: where the dispatch time goes. */
  readonly notes: string[];
  /** With a store: what the steps uploaded and fetched (their logs). */
  readonly traffic?: StoreTraffic;
}

/** Run the loop on its lanes, then read the traces, the histories and the policy simulation off it. */
async function measure(
  ctx: BenchContext,
  session: BenchSession,
  placement: Placement,
  store: ArtifactSettings | undefined,
): Promise<UtilisationMeasures> {
  const plan = await planLoop(ctx, placement, session.server.dir, store);
  const workers = await startWorkers(session, plan, ctx.log);
  const measured = await runMeasured(ctx, session.client, plan);
  const memory = await stopWorkers(workers);
  const jobs = await readLaneJobs(plan);
  const makespan = makespanOf(jobs.traced, ctx.options.lanes);
  const breakdown = await whereTheTimeGoes(session.client, plan.folder, jobs);
  const seed = seedPolicyRun(makespan.work, ctx.options.lanes);
  // After the run, with the bench idle: the last dispatch stage's floor.
  const baseline = placement === null ? await processStartBaseline(10) : null;
  return { plan, measured, memory, jobs, makespan, breakdown, seed, baseline };
}

/** With `store`, the loop keeps its working files in that artifact store (the `store` section). */
export async function runUtilisation(
  ctx: BenchContext,
  placement: Placement,
  store?: ArtifactSettings,
): Promise<UtilisationOutcome> {
  return withBenchSession(ctx, serverName(placement), {}, async (session) => {
    try {
      const measures = await measure(ctx, session, placement, store);
      const figures = utilisationFigures(measures, ctx.options);
      ctx.log(doneLine(measures));
      const tables = stageTables(measures);
      const notes = stageNotes(measures, tables);
      const details = utilisationDetails(measures, tables, await session.server.historyWarnings());
      if (store === undefined) return { figures, notes, details };
      return { figures, notes, details, traffic: await storeTraffic(measures.plan.folder.config.state_dir) };
    } finally {
      // The in-process lanes' steps inherit it: no later section's should.
      delete process.env.FIXTURE_TRACE;
    }
  });
}
