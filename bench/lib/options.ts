// Benchmark sizes: `--quick` for a smoke run, defaults for the full one; every size can be set
// with a flag (`--history-runs 1000`) or its variable (BENCH_HISTORY_RUNS=1000); a flag wins.

export const SECTIONS = ['dispatch', 'scale-out', 'history'] as const;
export type Section = (typeof SECTIONS)[number];

export interface BenchOptions {
  readonly quick: boolean;
  readonly sections: readonly Section[];
  /** Utilisation / dispatch: rounds x candidates jobs on `lanes` lanes. */
  readonly rounds: number;
  readonly candidates: number;
  readonly lanes: number;
  /** Each candidate's training sleeps a duration drawn uniformly from this range (seeded). */
  readonly jobMinMs: number;
  readonly jobMaxMs: number;
  readonly seed: number;
  /** Items in the fixture data set (smaller: cheaper steps). */
  readonly items: number;
  /** Worker processes the scale-out runs spread the lanes over. */
  readonly processes: readonly number[];
  /** History cost: runs of one generation, on the bench stack, over these lanes and candidates per round. */
  readonly historyRuns: number;
  readonly historyLanes: number;
  readonly historyCandidates: number;
  /** Seconds the history-cost run may take; past it the loop is stopped and the figures extrapolated. */
  readonly historyBudgetS: number;
  /** Events at which the history-cost server suggests continue-as-new; null: temporal-dev.yaml's. */
  readonly historyCanEvents: number | null;
  readonly statusCalls: number;
  readonly out: string;
  readonly keep: boolean;
}

interface Spec {
  readonly flag: string;
  readonly quick: string;
  readonly full: string;
  readonly help: string;
}

const SPECS: Record<string, Spec> = {
  sections: { flag: 'sections', quick: SECTIONS.join(','), full: SECTIONS.join(','), help: `which to run: ${SECTIONS.join(',')}` },
  rounds: { flag: 'rounds', quick: '4', full: '4', help: 'rounds of the utilisation runs' },
  candidates: { flag: 'candidates', quick: '6', full: '51', help: 'candidates per round (each its own duration)' },
  lanes: { flag: 'lanes', quick: '4', full: '4', help: 'lanes of the utilisation runs' },
  jobMs: { flag: 'job-ms', quick: '300-900', full: '2000-6000', help: 'training duration range MIN-MAX (ms)' },
  seed: { flag: 'seed', quick: '8', full: '8', help: 'seed of the duration draw' },
  items: { flag: 'items', quick: '200', full: '200', help: 'items in the fixture data set' },
  processes: { flag: 'processes', quick: '2,4', full: '2,4', help: 'worker processes of the scale-out runs' },
  historyRuns: { flag: 'history-runs', quick: '120', full: '5000', help: 'runs of the history-cost generation' },
  historyLanes: { flag: 'history-lanes', quick: '4', full: '6', help: 'lanes of the history-cost run' },
  historyCandidates: { flag: 'history-candidates', quick: '10', full: '10', help: 'candidates per round of the history-cost run' },
  historyBudgetS: { flag: 'history-budget-s', quick: '240', full: '900', help: 'time budget of the history-cost run (s); past it: stop, extrapolate' },
  historyCanEvents: { flag: 'history-can-events', quick: 'default', full: 'default', help: "history-cost run: events at which continue-as-new is suggested (default: temporal-dev.yaml's)" },
  statusCalls: { flag: 'status-calls', quick: '20', full: '50', help: 'status round trips to time' },
  out: { flag: 'out', quick: 'bench/results/latest.json', full: 'bench/results/latest.json', help: 'where the results go' },
};

export function usage(): string {
  const lines = Object.values(SPECS).map(
    (spec) => `  --${spec.flag.padEnd(20)} ${spec.help} (full: ${spec.full}; quick: ${spec.quick}; env BENCH_${spec.flag.toUpperCase().replace(/-/g, '_')})`,
  );
  return ['npm run bench -- [--quick] [--keep] [options]', '  --quick                 a small smoke run (about two minutes)', '  --keep                  keep the temp folders (servers, loops, logs)', ...lines].join('\n');
}

function positiveInt(text: string, flag: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${flag} must be a whole number >= 1 (got ${text})`);
  return value;
}

/** Parse argv (after `npm run bench --`) and BENCH_* variables. */
export function parseOptions(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): BenchOptions {
  const given = new Map<string, string>();
  let quick = env.BENCH_QUICK === '1' || env.BENCH_QUICK === 'true';
  let keep = env.BENCH_KEEP === '1' || env.BENCH_KEEP === 'true';
  for (let i = 0; i < argv.length; i += 1) {
    const token = argv[i] as string;
    if (token === '--quick') quick = true;
    else if (token === '--keep') keep = true;
    else if (token.startsWith('--')) {
      const [name, inline] = token.slice(2).split(/=(.*)/s, 2) as [string, string | undefined];
      if (!Object.values(SPECS).some((spec) => spec.flag === name)) throw new Error(`unknown option --${name}\n${usage()}`);
      const value = inline ?? argv[(i += 1)];
      if (value === undefined) throw new Error(`--${name} needs a value`);
      given.set(name, value);
    } else throw new Error(`unexpected argument ${token}\n${usage()}`);
  }
  const get = (key: keyof typeof SPECS): string => {
    const spec = SPECS[key] as Spec;
    return given.get(spec.flag) ?? env[`BENCH_${spec.flag.toUpperCase().replace(/-/g, '_')}`] ?? (quick ? spec.quick : spec.full);
  };
  const sections = get('sections')
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  for (const name of sections) if (!(SECTIONS as readonly string[]).includes(name)) throw new Error(`unknown section ${name}: use ${SECTIONS.join(',')}`);
  const jobMs = /^(\d+)-(\d+)$/.exec(get('jobMs'));
  if (!jobMs || Number(jobMs[1]) > Number(jobMs[2])) throw new Error(`--job-ms must be MIN-MAX in ms, MIN <= MAX (got ${get('jobMs')})`);
  const processes = get('processes')
    .split(',')
    .filter((text) => text.trim() !== '')
    .map((text) => positiveInt(text.trim(), 'processes'));
  const options: BenchOptions = {
    quick,
    sections: sections as Section[],
    rounds: positiveInt(get('rounds'), 'rounds'),
    candidates: positiveInt(get('candidates'), 'candidates'),
    lanes: positiveInt(get('lanes'), 'lanes'),
    jobMinMs: Number(jobMs[1]),
    jobMaxMs: Number(jobMs[2]),
    seed: positiveInt(get('seed'), 'seed'),
    items: positiveInt(get('items'), 'items'),
    processes,
    historyRuns: positiveInt(get('historyRuns'), 'history-runs'),
    historyLanes: positiveInt(get('historyLanes'), 'history-lanes'),
    historyCandidates: positiveInt(get('historyCandidates'), 'history-candidates'),
    historyBudgetS: positiveInt(get('historyBudgetS'), 'history-budget-s'),
    historyCanEvents: get('historyCanEvents') === 'default' ? null : positiveInt(get('historyCanEvents'), 'history-can-events'),
    statusCalls: positiveInt(get('statusCalls'), 'status-calls'),
    out: get('out'),
    keep,
  };
  for (const count of options.processes) {
    // `worker gpu` serves one lane per process: P processes run P lanes of lanes/P slots.
    if (count > options.lanes || options.lanes % count !== 0) throw new Error(`--processes ${count} must divide --lanes ${options.lanes}`);
  }
  if (options.candidates < 2) throw new Error('--candidates must be >= 2 (the bench empties candidates.yaml while the last round is queued)');
  return options;
}
