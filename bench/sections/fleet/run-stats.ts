// What one fleet generation's measures come to: dispatch, rate and busy share from its step
// trace, and the CPU the orchestrator, the dev server and the whole box used over it (/proc).
import { readFile } from 'node:fs/promises';
import { processCpu } from '../../lib/context.js';
import { busyFraction, steadyWindow } from '../../lib/fleet-math.js';
import { dispatchGaps } from '../../lib/slots.js';
import { summarize, type Summary } from '../../lib/stats.js';
import { tracedJobs, type TraceStep } from '../../lib/trace.js';

/** Busy and total CPU jiffies of the whole box, from /proc/stat: how saturated the 2 cores were. */
async function boxCpu(): Promise<{ busy: number; total: number } | null> {
  const text = await readFile('/proc/stat', 'utf8').catch(() => '');
  const fields = /^cpu\s+(.*)$/m.exec(text)?.[1]?.trim().split(/\s+/).map(Number);
  if (!fields || fields.length < 5) return null;
  const total = fields.slice(0, 8).reduce((sum, value) => sum + value, 0);
  const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
  return { busy: total - idle, total };
}

/** CPU counters at one instant: the orchestrator's and the server's process, the whole box. */
export interface CpuSample {
  readonly orchestrator: { own: number } | null;
  readonly server: { own: number } | null;
  readonly box: { busy: number; total: number } | null;
}

export async function sampleCpu(orchestratorPid: number | undefined, serverPid: number): Promise<CpuSample> {
  return {
    orchestrator: orchestratorPid === undefined ? null : await processCpu(orchestratorPid),
    server: await processCpu(serverPid),
    box: await boxCpu(),
  };
}

/** The CPU a run used between two samples, per dispatch (over `jobs`) and as cores (over `wallS`). */
export interface CpuUse {
  readonly orchestratorCpuMsPerDispatch: number;
  readonly serverCpuMsPerDispatch: number;
  readonly orchestratorCores: number;
  readonly serverCores: number;
  readonly boxBusy: number | null;
}

export function cpuUse(before: CpuSample, after: CpuSample, jobs: number, wallS: number): CpuUse {
  const delta = (pick: (sample: CpuSample) => { own: number } | null) => {
    const a = pick(before);
    const b = pick(after);
    return a && b ? b.own - a.own : Number.NaN;
  };
  const orchestratorS = delta((sample) => sample.orchestrator);
  const serverS = delta((sample) => sample.server);
  return {
    orchestratorCpuMsPerDispatch: (1000 * orchestratorS) / jobs,
    serverCpuMsPerDispatch: (1000 * serverS) / jobs,
    orchestratorCores: orchestratorS / wallS,
    serverCores: serverS / wallS,
    boxBusy: before.box && after.box ? (after.box.busy - before.box.busy) / (after.box.total - before.box.total) : null,
  };
}

/** What a run's step trace says: its jobs, their dispatch gaps, and rate and busy share over the steady window. */
export interface TraceStats {
  readonly jobs: number;
  readonly dispatch: Summary;
  /** The steady window (null when there were no more jobs than slots); its length in s (NaN without one). */
  readonly window: { from: number; to: number } | null;
  readonly windowS: number;
  /** Job starts per second in the window. */
  readonly ratePerS: number;
  readonly busy: number;
}

/** The stats of a run on `size` slots, `slotsPerLane` in each lane process. */
export function traceStats(steps: readonly TraceStep[], size: number, slotsPerLane: number): TraceStats {
  const traced = tracedJobs(steps);
  const gaps = dispatchGaps(traced, () => slotsPerLane).map((d) => d.gap);
  const window = steadyWindow(
    traced.map((job) => job.start),
    size,
  );
  const spans = traced.flatMap((job) => (job.train ? [job.train, job.evaluate] : [job.evaluate]));
  const startsIn = window ? traced.filter((job) => job.start > window.from && job.start <= window.to).length : 0;
  const windowS = window ? (window.to - window.from) / 1000 : Number.NaN;
  return {
    jobs: traced.length,
    dispatch: summarize(gaps),
    window,
    windowS,
    ratePerS: startsIn / windowS,
    busy: window ? busyFraction(spans, size, window) : Number.NaN,
  };
}
