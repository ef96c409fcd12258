// The loop a utilisation run drives: its lanes (placed in this process or in lane processes),
// its candidates (the fixture stack's training sleeps a seeded duration per candidate), its
// folder, and the step trace files its lanes write.
import path from 'node:path';
import type { ArtifactSettings } from '../../../src/artifacts/store-settings.js';
import type { BenchContext } from '../../lib/context.js';
import { drawDurations } from '../../lib/durations.js';
import { createLoopFolder, type LaneSpec, type LoopFolder } from '../../lib/loop-folder.js';

export const LOOP_ID = 'bench';
const HOST = 'bench';

/** null: orchestrator and lanes in this process; N: the lanes in N `worker gpu` processes, the orchestrator in one more. */
export type Placement = number | null;

export interface LoopPlan {
  readonly placement: Placement;
  /** The run in log lines and notes: `in-process` or `N lane processes`. */
  readonly label: string;
  /** The figures' section: `dispatch` or `scale-out Np`. */
  readonly section: string;
  readonly lanes: LaneSpec[];
  /** Candidate names (c01, c02, ...) and each one's training sleep, ms. */
  readonly names: string[];
  readonly durations: number[];
  /** Jobs planned: rounds x candidates. */
  readonly jobs: number;
  readonly folder: LoopFolder;
  /** In-process: one trace for every lane; else one per lane process, in the order of `lanes`. */
  readonly traceFiles: string[];
}

/** The name of the run's server (its temp folder `champion-loop-bench-<name>-*`). */
export function serverName(placement: Placement): string {
  return placement === null ? 'dispatch' : `scale-${placement}`;
}

/** Lanes of a placement: in-process and one process per lane, `lanes` lanes of one slot; else P lanes of lanes/P slots. */
function lanesOf(lanes: number, placement: Placement): LaneSpec[] {
  const count = placement === null ? lanes : placement;
  const slots = lanes / count;
  return Array.from({ length: count }, (_, device) => ({ host: HOST, device, slots }));
}

function traceFile(dir: string, device: number | null): string {
  return path.join(dir, device === null ? 'trace.jsonl' : `trace-lane-${device}.jsonl`);
}

/** The lanes, the candidates and the loop folder (under the server's `dir`) of a run; with `store`, the loop's artifact store. */
export async function planLoop(
  ctx: BenchContext,
  placement: Placement,
  dir: string,
  store?: ArtifactSettings,
): Promise<LoopPlan> {
  const { options } = ctx;
  const lanes = lanesOf(options.lanes, placement);
  const durations = drawDurations(options.candidates, options.seed, options.jobMinMs, options.jobMaxMs);
  const names = durations.map((_, index) => `c${String(index + 1).padStart(2, '0')}`);
  const folder = await createLoopFolder({
    dir: path.join(dir, 'loop'),
    stack: 'fixture',
    candidates: names.map((name, index) => ({ name, overrides: { fixture_sleep_ms: durations[index] } })),
    lanes,
    items: options.items,
    base: { fixture_epochs: 1, fixture_quality: 0.5 },
  });
  const where = placement === null ? 'in-process' : `${placement} lane processes`;
  return {
    placement,
    label: store === undefined ? where : `${where}, artifact store`,
    section: store !== undefined ? 'store' : placement === null ? 'dispatch' : `scale-out ${placement}p`,
    lanes,
    names,
    durations,
    jobs: options.rounds * options.candidates,
    folder: store === undefined ? folder : { ...folder, config: { ...folder.config, artifacts: store } },
    traceFiles: placement === null ? [traceFile(dir, null)] : lanes.map((lane) => traceFile(dir, lane.device)),
  };
}
