// Section 4: every run of the chain replayed in a fresh process with the real bundle, as a new
// orchestrator worker does when it takes a running generation over; the largest run also cut
// into prefixes, for the cost per event beside the fixed cost.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import proto from '@temporalio/proto';
import { execa } from 'execa';
import { PROJECT_ROOT } from '../../../src/devserver/project-root.js';
import type { BenchContext } from '../../lib/context.js';
import type { HistoryEvent } from '../../lib/history.js';

/** What bench/replay-child.ts prints: times and memory. */
interface ReplayOutput {
  readonly replays: { file: string; events: number; readMs: number; replayMs: number }[];
  readonly cuts: { events: number; replayMs: number }[];
  readonly rssAtStartMiB: number | null;
  readonly rssAfterReplaysMiB: number | null;
  readonly peakAfterReplaysMiB: number | null;
  readonly peakRssMiB: number | null;
  readonly heapUsedMiB: number;
}

type ReplayProcess = ReplayOutput & { processMs: number };

export interface ReplayMeasures {
  /** The largest run alone, and its prefixes. */
  readonly single: ReplayProcess;
  /** Every run of the chain, one process, run after run. */
  readonly whole: ReplayProcess;
  /** Replay time over events, through the prefixes; null with fewer than two distinct cuts. */
  readonly fit: { slope: number; intercept: number } | null;
  readonly replayMs: number | null;
  readonly chainMs: number;
}

export async function measureReplay(
  ctx: BenchContext,
  serverDir: string,
  chain: readonly HistoryEvent[][],
  largestIndex: number,
): Promise<ReplayMeasures> {
  const replayDir = path.join(serverDir, 'replay');
  await mkdir(replayDir, { recursive: true });
  const bundleFile = path.join(replayDir, 'workflow-bundle.js');
  await writeFile(bundleFile, ctx.bundle.code);
  const files = await writeHistoryFiles(replayDir, chain);
  const largestFile = files[largestIndex] as string;
  const single = await replayInFreshProcess(bundleFile, [largestFile], true);
  const fit = lineFit(single.cuts.map((cut) => [cut.events, cut.replayMs]));
  const whole = await replayInFreshProcess(bundleFile, files);
  return {
    single,
    whole,
    fit,
    replayMs: single.replays[0]?.replayMs ?? null,
    chainMs: whole.replays.reduce((sum, r) => sum + r.replayMs, 0),
  };
}

/** Each run as replay/run-NNN.history.pb (temporal.api.history.v1.History, protobuf binary), in the chain's order. */
async function writeHistoryFiles(replayDir: string, chain: readonly HistoryEvent[][]): Promise<string[]> {
  const files: string[] = [];
  for (const [index, events] of chain.entries()) {
    const file = path.join(replayDir, `run-${String(index + 1).padStart(3, '0')}.history.pb`);
    await writeFile(file, proto.temporal.api.history.v1.History.encode({ events }).finish());
    files.push(file);
  }
  return files;
}

/** Replay history files in a fresh `node --import tsx bench/replay-child.ts` process. */
async function replayInFreshProcess(
  bundleFile: string,
  files: readonly string[],
  prefixes = false,
): Promise<ReplayProcess> {
  const start = Date.now();
  const script = path.join(PROJECT_ROOT, 'bench', 'replay-child.ts');
  const result = await execa(
    process.execPath,
    ['--import', 'tsx', script, ...(prefixes ? ['--prefixes'] : []), bundleFile, ...files],
    {
      cwd: PROJECT_ROOT,
      reject: false,
    },
  );
  if (result.exitCode !== 0) throw new Error(`replay failed (exit ${result.exitCode}): ${result.stderr.slice(-2000)}`);
  const line = result.stdout.trim().split('\n').pop() ?? '{}';
  return { ...(JSON.parse(line) as ReplayOutput), processMs: Date.now() - start };
}

/** Least-squares line through points; null with fewer than two distinct x. */
function lineFit(points: readonly (readonly [number, number])[]): { slope: number; intercept: number } | null {
  const n = points.length;
  const mx = points.reduce((sum, [x]) => sum + x, 0) / n;
  const my = points.reduce((sum, [, y]) => sum + y, 0) / n;
  const sxx = points.reduce((sum, [x]) => sum + (x - mx) ** 2, 0);
  if (n < 2 || sxx === 0) return null;
  const slope = points.reduce((sum, [x, y]) => sum + (x - mx) * (y - my), 0) / sxx;
  return { slope, intercept: my - slope * mx };
}
