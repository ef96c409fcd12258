// Section 3's loop: one long generation of thousands of runs on the bench stack (shell steps, the
// cheapest the contract allows), run to the end (or the budget) with the measures taken while
// it still runs, then the CPU it cost per run and what its steps logged.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { BenchSession } from '../../lib/bench-session.js';
import { processCpu, type BenchContext } from '../../lib/context.js';
import { createLoopFolder, type LaneSpec, type LoopFolder } from '../../lib/loop-folder.js';
import type { BenchOptions } from '../../lib/options.js';
import { runRounds, type BoundedRun } from '../../lib/run-loop.js';
import { LOOP_ID } from './loop-id.js';
import { measureWhileIdle, type IdleMeasures } from './while-idle.js';

/** The generation to run: its folder, its lanes, how many runs in how many rounds. */
export interface HistoryLoop {
  readonly folder: LoopFolder;
  readonly lanes: readonly LaneSpec[];
  readonly rounds: number;
  readonly runs: number;
  /** Evaluated training runs whose id starts with `prefix`: evals/<run id>/ (round ensembles are evals/ens-...). */
  evaluated(prefix: string): Promise<number>;
}

/** `historyCandidates` candidates per round, enough rounds for `historyRuns` runs, one slot per lane. */
export async function setUpHistoryLoop(options: BenchOptions, serverDir: string): Promise<HistoryLoop> {
  const candidates = Array.from({ length: options.historyCandidates }, (_, index) => ({
    name: `h${String(index + 1).padStart(2, '0')}`,
    overrides: {},
  }));
  const rounds = Math.ceil(options.historyRuns / options.historyCandidates);
  const lanes = Array.from({ length: options.historyLanes }, (_, device) => ({ host: 'bench', device, slots: 1 }));
  const folder = await createLoopFolder({
    dir: path.join(serverDir, 'loop'),
    stack: 'bench',
    candidates,
    lanes,
    items: 100,
    base: {},
  });
  const evalsDir = path.join(folder.config.state_dir, 'evals');
  const evaluated = async (prefix: string): Promise<number> =>
    (await readdir(evalsDir).catch(() => [])).filter((name) => name.startsWith(prefix)).length;
  return { folder, lanes, rounds, runs: rounds * options.historyCandidates, evaluated };
}

/** CPU milliseconds per run done, by who spent them; null where /proc could not tell. */
interface CpuMsPerRun {
  readonly workersInThisProcess: number | null;
  readonly stepProcesses: number | null;
  readonly devServer: number | null;
}

export interface HistoryRun {
  readonly run: BoundedRun;
  readonly wallMs: number;
  /** Runs per minute: the runs done by the time the loop was stopped (or went idle), over that time. */
  readonly perMinute: number;
  readonly cpuMsPerRun: CpuMsPerRun;
  readonly ensembles: number;
  readonly errors: string[];
  readonly idle: IdleMeasures;
}

/**
 * Run the generation on the orchestrator and lanes in this process; once it idles (or the budget
 * ran out), the while-idle measures. The workers (the takeover's too) are stopped before it returns.
 */
export async function runHistoryLoop(ctx: BenchContext, session: BenchSession, loop: HistoryLoop): Promise<HistoryRun> {
  const { options, log } = ctx;
  const { client, server } = session;
  const workers = await session.inProcess(loop.lanes);
  const cpuBefore = await sampleCpu(server.pid);
  // Filled in while the loop idles (a holder: TypeScript would narrow plain lets to null).
  const held: { cpuAfter: CpuSample | null; idle: IdleMeasures } = {
    cpuAfter: null,
    idle: { status: null, takeover: null },
  };
  log(
    `history: ${loop.runs} runs (${loop.rounds} rounds x ${options.historyCandidates} candidates) on ${loop.lanes.length} lanes, bench stack; budget ${options.historyBudgetS} s`,
  );
  const run = await runRounds({
    client,
    loopId: LOOP_ID,
    folder: loop.folder,
    rounds: loop.rounds,
    jobs: loop.runs,
    finished: () => loop.evaluated('champ-'),
    timeoutMs: options.historyBudgetS * 1000,
    onTimeout: 'stop',
    pollMs: 1000,
    progress: (line) => log(`history: ${line}`),
    whileIdle: async () => {
      // The CPU of the runs: sampled before the measures below add their own.
      held.cpuAfter = await sampleCpu(server.pid);
      held.idle = await measureWhileIdle(ctx, session, workers.orchestrator);
    },
  });
  const { cpuAfter, idle } = held;
  const wallMs = run.doneAt - run.startedAt;
  const ensembles = await loop.evaluated('ens-');
  const errors = await stepErrors(path.join(loop.folder.config.state_dir, 'logs'));
  log(`history: ${run.done} runs ${run.complete ? '' : '(budget ran out) '}in ${(wallMs / 1000).toFixed(0)} s`);
  await idle.takeover?.workers.stop();
  await workers.stop();
  return {
    run,
    wallMs,
    perMinute: (run.doneAtStop / wallMs) * 60_000,
    cpuMsPerRun: cpuMsPerRun(cpuBefore, cpuAfter, run.doneAtStop),
    ensembles,
    errors,
    idle,
  };
}

type ProcessCpu = Awaited<ReturnType<typeof processCpu>>;

/** CPU seconds so far of this process (workers, and step processes as its children) and of the dev server. */
interface CpuSample {
  readonly bench: ProcessCpu;
  readonly server: ProcessCpu;
}

async function sampleCpu(serverPid: number): Promise<CpuSample> {
  return { bench: await processCpu('self'), server: await processCpu(serverPid) };
}

function cpuMsPerRun(before: CpuSample, after: CpuSample | null, runs: number): CpuMsPerRun {
  const perRun = (pick: (c: CpuSample) => number | undefined): number | null => {
    const from = pick(before);
    const to = after ? pick(after) : undefined;
    return from === undefined || to === undefined || !Number.isFinite(to - from)
      ? null
      : ((to - from) * 1000) / Math.max(1, runs);
  };
  return {
    workersInThisProcess: perRun((c) => c.bench?.own),
    stepProcesses: perRun((c) => c.bench?.children),
    devServer: perRun((c) => (c.server ? c.server.own + c.server.children : undefined)),
  };
}

/** Lines the steps wrote to their logs that read like errors (the bench stack's own messages, the shell's), first 20 distinct. */
async function stepErrors(logsDir: string): Promise<string[]> {
  const found = new Set<string>();
  for (const name of (await readdir(logsDir).catch(() => [])).filter((file) => file.endsWith('.log')).sort()) {
    const text = await readFile(path.join(logsDir, name), 'utf8').catch(() => '');
    for (const line of text.split('\n')) {
      if (
        !line.startsWith('---') &&
        /error|cannot|can't|unknown|required|no such|denied|fork|killed|not found/i.test(line)
      )
        found.add(`${name}: ${line.slice(0, 200)}`);
      if (found.size >= 20) return [...found];
    }
  }
  return [...found];
}
