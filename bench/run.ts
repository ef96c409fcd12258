// `npm run bench`: how well the loop keeps its lanes busy, measured on dev servers of its own
// with real workers and real subprocesses. Prints every figure beside its goal, writes
// bench/results/latest.json, and exits 0 whether or not a goal is met. See bench/README.md.
import os from 'node:os';
import path from 'node:path';
import { bundleWorkflowCode, DefaultLogger, makeTelemetryFilterString, Runtime } from '@temporalio/worker';
import { WORKFLOW_INTERCEPTOR_MODULES } from '../src/tracing/workflow-interceptors.js';
import { ensureTemporalCli } from '../src/devserver/provision.js';
import { PROJECT_ROOT } from '../src/devserver/project-root.js';
import { WORKFLOWS_PATH } from '../src/workers/orchestrator-worker.js';
import type { BenchContext } from './lib/context.js';
import { calibrate, describeCalibration } from './lib/calibration.js';
import { figure, renderTable, type Figure } from './lib/figures.js';
import { parseOptions, usage } from './lib/options.js';
import { writeResults } from './lib/results-file.js';
import { runHistory } from './sections/history.js';
import { runGrowth } from './sections/growth.js';
import { runFleet } from './sections/fleet.js';
import { runLedgerCopy } from './sections/ledger-copy.js';
import { runPacking } from './sections/packing.js';
import { runUtilisation } from './sections/utilisation.js';
import { runStore } from './sections/store.js';
import { runDeploy } from './sections/deploy.js';
import { runFairness } from './sections/fairness.js';

if (process.argv.includes('--help') || process.argv.includes('-h')) {
  console.log(usage());
  process.exit(0);
}
const options = parseOptions(process.argv.slice(2));
const began = Date.now();
const log = (line: string): void =>
  console.error(`[bench ${((Date.now() - began) / 1000).toFixed(0).padStart(4)}s] ${line}`);

// Workers' warnings and errors are counted for the results file, not printed: a line per job
// would drown the figures (lanes say they run no workflows; a loop stopped while idle leaves its
// idle watch to complete into a closed workflow). Info and below are not even formatted.
const workerLogs = new Map<string, number>();
Runtime.install({
  logger: new DefaultLogger('WARN', (entry) => {
    const key = `${entry.level} ${entry.message.slice(0, 160)}`;
    workerLogs.set(key, (workerLogs.get(key) ?? 0) + 1);
  }),
  // The SDK core's own warnings come to the same logger instead of the console.
  telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'WARN', other: 'ERROR' }), forward: {} } },
  // Interrupted, the bench ends (its dev servers and worker processes go with it), not just its workers.
  shutdownSignals: [],
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    console.error(`[bench] ${signal}: stopping; no results written`);
    process.exit(130);
  });
}

const calibrationAtStart = calibrate();
log(describeCalibration('machine at the start', calibrationAtStart));
log(
  `${options.quick ? 'quick' : 'full'} run: sections ${options.sections.join(', ')}; load average ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')} on ${os.cpus().length} cores`,
);
const cli = await ensureTemporalCli((line) => log(`[provision] ${line}`));
log(`Temporal CLI ${cli.version} (${cli.route})`);
const bundleStart = Date.now();
const bundle = await bundleWorkflowCode({
  workflowsPath: WORKFLOWS_PATH,
  workflowInterceptorModules: WORKFLOW_INTERCEPTOR_MODULES,
  logger: {
    log: () => undefined,
    trace: () => undefined,
    debug: () => undefined,
    info: () => undefined,
    warn: (m) => log(m),
    error: (m) => log(m),
  },
});
const ctx: BenchContext = { cli: cli.path, bundle, bundleMs: Date.now() - bundleStart, options, log };
log(`workflow bundle built in ${ctx.bundleMs} ms`);

const figures: Figure[] = [];
const details: Record<string, unknown> = {};
const errors: Record<string, string> = {};
const notes: string[] = [];
const section = async (
  name: string,
  body: () => Promise<{ figures: Figure[]; details: Record<string, unknown>; notes?: string[] }>,
): Promise<void> => {
  try {
    const outcome = await body();
    figures.push(...outcome.figures);
    details[name] = outcome.details;
    notes.push(...(outcome.notes ?? []));
  } catch (error) {
    // A section that cannot run is reported, and the others still run.
    errors[name] = error instanceof Error ? (error.stack ?? error.message) : String(error);
    log(`section ${name} failed: ${errors[name]}`);
  }
};

if (options.sections.includes('dispatch')) await section('dispatch', () => runUtilisation(ctx, null));
if (options.sections.includes('scale-out')) {
  for (const processes of options.processes)
    await section(`scale-out-${processes}`, () => runUtilisation(ctx, processes));
}
if (options.sections.includes('history')) await section('history', () => runHistory(ctx));
if (options.sections.includes('ledger-copy')) await section('ledger-copy', () => runLedgerCopy(ctx));
if (options.sections.includes('growth')) await section('growth', () => runGrowth(ctx));
if (options.sections.includes('fleet')) await section('fleet', () => runFleet(ctx));
if (options.sections.includes('packing')) await section('packing', () => Promise.resolve(runPacking(ctx)));
if (options.sections.includes('store')) await section('store', () => runStore(ctx));
if (options.sections.includes('deploy')) await section('deploy', () => runDeploy(ctx));
if (options.sections.includes('fairness')) await section('fairness', () => runFairness(ctx));

const calibrationAtEnd = calibrate();
log(describeCalibration('machine at the end', calibrationAtEnd));
// The calibration goes into the table beside the absolute figures it qualifies.
figures.push(
  figure(
    'machine',
    'fixed single-threaded workload at the start (median of 5)',
    calibrationAtStart.workloadMs,
    'ms',
    null,
    `load average ${calibrationAtStart.load1.toFixed(2)} on ${calibrationAtStart.cores} cores`,
  ),
  figure(
    'machine',
    'the same at the end',
    calibrationAtEnd.workloadMs,
    'ms',
    null,
    `load average ${calibrationAtEnd.load1.toFixed(2)}; compare figures across boxes by the ratio of these times`,
  ),
);

const order = [
  'machine',
  'dispatch',
  'utilisation',
  'scale-out',
  'history',
  'replay',
  'client',
  'ledger-copy',
  'growth',
  'fleet',
  'packing',
  'deploy',
  'fairness',
];
const rank = (f: Figure) => {
  const index = order.indexOf(f.section.startsWith('scale-out') ? 'scale-out' : f.section);
  return index < 0 ? order.length : index;
};
const sorted = figures
  .map((f, index) => ({ f, index }))
  .sort((a, b) => rank(a.f) - rank(b.f) || a.index - b.index)
  .map(({ f }) => f);
const table = renderTable(sorted);
console.log(
  `\nchampion-loop bench (${options.quick ? 'quick' : 'full'}), ${new Date().toISOString()}, ${os.cpus().length} cores, load ${os.loadavg()[0]?.toFixed(1)}\n`,
);
console.log(table);
for (const note of notes) console.log(`\n${note}`);
for (const [name, text] of Object.entries(errors))
  console.log(`\nsection ${name} did not complete: ${text.split('\n')[0]}`);
const missed = sorted.filter((f) => f.met === false);
console.log(
  `\n${sorted.filter((f) => f.met === true).length} goals met, ${missed.length} missed${missed.length ? `: ${missed.map((f) => f.name).join('; ')}` : ''}.`,
);

const out = path.resolve(PROJECT_ROOT, options.out);
const written = await writeResults(
  out,
  {
    when: new Date().toISOString(),
    quick: options.quick,
    options,
    calibration: { start: calibrationAtStart, end: calibrationAtEnd },
    machine: {
      cores: os.cpus().length,
      model: os.cpus()[0]?.model ?? null,
      loadAverageAtEnd: os.loadavg(),
      memoryGiB: os.totalmem() / 2 ** 30,
      node: process.version,
    },
    temporalCli: { version: cli.version, route: cli.route },
    workflowBundleMs: ctx.bundleMs,
    wallSeconds: (Date.now() - began) / 1000,
    figures: sorted,
    errors,
  },
  { details, workerWarnings: Object.fromEntries(workerLogs) },
);
log(
  `results in ${path.relative(PROJECT_ROOT, out)}, details in ${path.relative(PROJECT_ROOT, written)} (${((Date.now() - began) / 1000).toFixed(0)} s in all)`,
);
// Exit 0 even when a goal is missed: the figures are the result. Native handles may linger.
process.exit(0);
