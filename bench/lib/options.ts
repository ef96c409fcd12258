// Benchmark sizes: `--quick` for a smoke run, defaults for the full one; every size can be set
// with a flag (`--history-runs 1000`) or its variable (BENCH_HISTORY_RUNS=1000); a flag wins.
import { Command, CommanderError, Option } from 'commander';

const SECTIONS = [
  'dispatch',
  'scale-out',
  'history',
  'ledger-copy',
  'growth',
  'fleet',
  'packing',
  'store',
  'deploy',
  'fairness',
] as const;
type Section = (typeof SECTIONS)[number];

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
  /** Growth: the ledger sizes (evaluations) measured, ascending. */
  readonly growthSizes: readonly number[];
  /** Fleet: lane counts measured (one generation each), over fleetProcesses lane processes. */
  readonly fleetSizes: readonly number[];
  readonly fleetProcesses: number;
  readonly fleetRounds: number;
  /** Fleet: the sleep of a training step, drawn per run from this range (ms). */
  readonly fleetJobMs: readonly [number, number];
  /** Fleet ceiling search: job ranges (ms), ever shorter, run on the largest size until dispatch p99 passes 1 s. */
  readonly fleetSteps: readonly (readonly [number, number])[];
  /** Fairness: seconds measured per server setting, and the sleep of a training step (ms). */
  readonly fairnessWindowS: number;
  readonly fairnessJobMs: readonly [number, number];
  /** Packing: rounds of the simulated trace (8 candidates of 6 to 45 GiB a round). */
  readonly packingRounds: number;
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
  sections: {
    flag: 'sections',
    quick: SECTIONS.join(','),
    full: SECTIONS.join(','),
    help: `which to run: ${SECTIONS.join(',')}`,
  },
  rounds: { flag: 'rounds', quick: '4', full: '4', help: 'rounds of the utilisation runs' },
  candidates: { flag: 'candidates', quick: '6', full: '51', help: 'candidates per round (each its own duration)' },
  lanes: { flag: 'lanes', quick: '4', full: '4', help: 'lanes of the utilisation runs' },
  jobMs: { flag: 'job-ms', quick: '300-900', full: '2000-6000', help: 'training duration range MIN-MAX (ms)' },
  seed: { flag: 'seed', quick: '8', full: '8', help: 'seed of the duration draw' },
  items: { flag: 'items', quick: '200', full: '200', help: 'items in the fixture data set' },
  processes: { flag: 'processes', quick: '2,4', full: '2,4', help: 'worker processes of the scale-out runs' },
  historyRuns: { flag: 'history-runs', quick: '120', full: '5000', help: 'runs of the history-cost generation' },
  historyLanes: { flag: 'history-lanes', quick: '4', full: '6', help: 'lanes of the history-cost run' },
  historyCandidates: {
    flag: 'history-candidates',
    quick: '10',
    full: '10',
    help: 'candidates per round of the history-cost run',
  },
  historyBudgetS: {
    flag: 'history-budget-s',
    quick: '240',
    full: '900',
    help: 'time budget of the history-cost run (s); past it: stop, extrapolate',
  },
  historyCanEvents: {
    flag: 'history-can-events',
    quick: 'default',
    full: 'default',
    help: "history-cost run: events at which continue-as-new is suggested (default: temporal-dev.yaml's)",
  },
  statusCalls: { flag: 'status-calls', quick: '20', full: '50', help: 'status round trips to time' },
  growthSizes: {
    flag: 'growth-sizes',
    quick: '200,2000',
    full: '500,5000,50000',
    help: 'growth: ledger sizes in evaluations',
  },
  fleetSizes: { flag: 'fleet-sizes', quick: '16', full: '16,32,64', help: 'fleet: lane counts, one generation each' },
  fleetProcesses: { flag: 'fleet-processes', quick: '8', full: '8', help: 'fleet: lane worker processes' },
  fleetRounds: {
    flag: 'fleet-rounds',
    quick: '2',
    full: '4',
    help: 'fleet: rounds per size (one job per lane a round)',
  },
  fleetJobMs: {
    flag: 'fleet-job-ms',
    quick: '5000-15000',
    full: '5000-15000',
    help: 'fleet: training sleep MIN-MAX (ms)',
  },
  fleetSteps: {
    flag: 'fleet-steps',
    quick: '2000-4000,500-1500',
    full: '6000-12000,4500-9500,3500-7500,2000-6000,1000-3000',
    help: 'fleet ceiling search: job ranges MIN-MAX (ms), shortest last',
  },
  packingRounds: {
    flag: 'packing-rounds',
    quick: '25',
    full: '25',
    help: 'packing: rounds of the simulated trace (8 jobs a round)',
  },
  fairnessWindowS: {
    flag: 'fairness-window-s',
    quick: '30',
    full: '60',
    help: 'fairness: seconds measured per server setting (three settings)',
  },
  fairnessJobMs: {
    flag: 'fairness-job-ms',
    quick: '2000-4000',
    full: '2000-4000',
    help: 'fairness: training sleep MIN-MAX (ms)',
  },
  out: {
    flag: 'out',
    quick: 'bench/results/latest.json',
    full: 'bench/results/latest.json',
    help: 'where the results go',
  },
};

const envName = (flag: string): string => `BENCH_${flag.toUpperCase().replace(/-/g, '_')}`;

function program(): Command {
  const command = new Command('npm run bench --')
    .usage('[--quick] [--keep] [options]')
    .exitOverride()
    .configureOutput({ writeOut: () => undefined, writeErr: () => undefined })
    .helpOption(false)
    .allowExcessArguments(false)
    .option('--quick', 'a small smoke run (about two minutes)')
    .option('--keep', 'keep the temp folders (servers, loops, logs)');
  for (const spec of Object.values(SPECS)) {
    command.addOption(
      new Option(
        `--${spec.flag} <value>`,
        `${spec.help} (full: ${spec.full}; quick: ${spec.quick}; env ${envName(spec.flag)})`,
      ),
    );
  }
  return command;
}

export function usage(): string {
  return program().helpInformation().trimEnd();
}

function positiveInt(text: string, flag: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${flag} must be a whole number >= 1 (got ${text})`);
  return value;
}

/** A comma-separated list of whole numbers >= 1 (empty entries skipped), in the order given. */
function positiveInts(text: string, flag: string): number[] {
  return text
    .split(',')
    .filter((entry) => entry.trim() !== '')
    .map((entry) => positiveInt(entry.trim(), flag));
}

/** Sizes measured one after another, ascending. */
const ascending = (values: number[]): number[] => values.sort((a, b) => a - b);

/** MIN-MAX with MIN <= MAX, or null. */
function matchRange(text: string): [number, number] | null {
  const match = /^(\d+)-(\d+)$/.exec(text);
  if (!match || Number(match[1]) > Number(match[2])) return null;
  return [Number(match[1]), Number(match[2])];
}

/** A duration range MIN-MAX (ms), spaces around it allowed. */
function range(text: string, flag: string): [number, number] {
  const parsed = matchRange(text.trim());
  if (!parsed) throw new Error(`--${flag} must be MIN-MAX in ms, MIN <= MAX (got ${text})`);
  return parsed;
}

/** A comma-separated list of duration ranges (empty entries skipped). */
function ranges(text: string, flag: string): [number, number][] {
  return text
    .split(',')
    .filter((entry) => entry.trim() !== '')
    .map((entry) => range(entry, flag));
}

/** `--job-ms`: as `range`, but the whole text must be MIN-MAX (no spaces around it). */
function jobMsRange(text: string): [number, number] {
  const parsed = matchRange(text);
  if (!parsed) throw new Error(`--job-ms must be MIN-MAX in ms, MIN <= MAX (got ${text})`);
  return parsed;
}

function sectionsOf(text: string): Section[] {
  const sections = text
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  for (const name of sections)
    if (!(SECTIONS as readonly string[]).includes(name))
      throw new Error(`unknown section ${name}: use ${SECTIONS.join(',')}`);
  return sections as Section[];
}

/** What the command line gave, by flag (`--history-runs`). */
type Given = ReadonlyMap<string | undefined, string | boolean | undefined>;

function parseCommandLine(argv: readonly string[]): Given {
  const command = program();
  try {
    command.parse(argv, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) throw new Error(`${error.message.replace(/^error: /, '')}\n${usage()}`);
    throw error;
  }
  return new Map(
    command.options.map((option) => [
      option.long,
      command.getOptionValue(option.attributeName()) as string | boolean | undefined,
    ]),
  );
}

/** A switch (`--quick`, `--keep`): its flag, or its variable set to 1 or true. */
function switchOn(given: Given, env: NodeJS.ProcessEnv, flag: string): boolean {
  const variable = env[envName(flag)];
  return given.get(`--${flag}`) === true || variable === '1' || variable === 'true';
}

/** An option's text: its flag, else its variable, else the quick or full default. */
type Lookup = (key: keyof typeof SPECS) => string;

function lookup(given: Given, env: NodeJS.ProcessEnv, quick: boolean): Lookup {
  return (key) => {
    const spec = SPECS[key] as Spec;
    const flagged = given.get(`--${spec.flag}`) as string | undefined;
    return flagged ?? env[envName(spec.flag)] ?? (quick ? spec.quick : spec.full);
  };
}

/** Every option read and checked on its own, in the order their errors are reported. */
function optionsFrom(get: Lookup, quick: boolean, keep: boolean): BenchOptions {
  const sections = sectionsOf(get('sections'));
  const [jobMinMs, jobMaxMs] = jobMsRange(get('jobMs'));
  const processes = positiveInts(get('processes'), 'processes');
  return {
    quick,
    sections,
    rounds: positiveInt(get('rounds'), 'rounds'),
    candidates: positiveInt(get('candidates'), 'candidates'),
    lanes: positiveInt(get('lanes'), 'lanes'),
    jobMinMs,
    jobMaxMs,
    seed: positiveInt(get('seed'), 'seed'),
    items: positiveInt(get('items'), 'items'),
    processes,
    historyRuns: positiveInt(get('historyRuns'), 'history-runs'),
    historyLanes: positiveInt(get('historyLanes'), 'history-lanes'),
    historyCandidates: positiveInt(get('historyCandidates'), 'history-candidates'),
    historyBudgetS: positiveInt(get('historyBudgetS'), 'history-budget-s'),
    historyCanEvents:
      get('historyCanEvents') === 'default' ? null : positiveInt(get('historyCanEvents'), 'history-can-events'),
    statusCalls: positiveInt(get('statusCalls'), 'status-calls'),
    packingRounds: positiveInt(get('packingRounds'), 'packing-rounds'),
    growthSizes: ascending(positiveInts(get('growthSizes'), 'growth-sizes')),
    fleetSizes: ascending(positiveInts(get('fleetSizes'), 'fleet-sizes')),
    fleetProcesses: positiveInt(get('fleetProcesses'), 'fleet-processes'),
    fleetRounds: positiveInt(get('fleetRounds'), 'fleet-rounds'),
    fleetJobMs: range(get('fleetJobMs'), 'fleet-job-ms'),
    fleetSteps: ranges(get('fleetSteps'), 'fleet-steps'),
    fairnessWindowS: positiveInt(get('fairnessWindowS'), 'fairness-window-s'),
    fairnessJobMs: range(get('fairnessJobMs'), 'fairness-job-ms'),
    out: get('out'),
    keep,
  };
}

/** The checks between options. */
function checkCombinations(options: BenchOptions): void {
  for (const size of options.fleetSizes)
    if (size % options.fleetProcesses !== 0)
      throw new Error(`--fleet-sizes ${size} must be a multiple of --fleet-processes ${options.fleetProcesses}`);
  for (const count of options.processes) {
    // `worker gpu` serves one lane per process: P processes run P lanes of lanes/P slots.
    if (count > options.lanes || options.lanes % count !== 0)
      throw new Error(`--processes ${count} must divide --lanes ${options.lanes}`);
  }
  if (options.candidates < 2)
    throw new Error('--candidates must be >= 2 (the bench empties candidates.yaml while the last round is queued)');
}

/** Parse argv (after `npm run bench --`) and BENCH_* variables. */
export function parseOptions(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): BenchOptions {
  const given = parseCommandLine(argv);
  const quick = switchOn(given, env, 'quick');
  const options = optionsFrom(lookup(given, env, quick), quick, switchOn(given, env, 'keep'));
  checkCombinations(options);
  return options;
}
