// The fixture stack's step trace (FIXTURE_TRACE, test/fixture-stack/lib/trace.mjs) read back as
// jobs on lanes: a training run is its train step then its evaluate step (one --config); a round
// ensemble is its one evaluate-ensemble step (one --manifest). Pure, no I/O.

/** One line of the trace: a step process, its start (process start) and end, epoch ms. */
export interface TraceStep {
  readonly step: string;
  readonly lane: string | null;
  readonly pid: number;
  readonly start: number;
  readonly loaded: number;
  readonly end: number;
  readonly config: string | null;
  readonly manifest?: string | null;
}

/** A job as its lane ran it. */
export interface TracedJob {
  readonly kind: 'run' | 'ensemble';
  /** The run's job config path (names generation, round and candidate), or the ensemble's manifest. */
  readonly key: string;
  readonly lane: string;
  /** null for an ensemble. */
  readonly train: TraceStep | null;
  /** The evaluate step (evaluate-ensemble for an ensemble). */
  readonly evaluate: TraceStep;
  /** First step's start to last step's end: the lane's span for this job. */
  readonly start: number;
  readonly end: number;
  /** Time its step processes ran: the work a perfect dispatcher could not avoid. */
  readonly work: number;
}

/** Parse trace text; `lane` overrides each line's lane (a trace file per worker process). */
export function parseTrace(text: string, lane?: string): TraceStep[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const step = JSON.parse(line) as TraceStep;
      return lane === undefined ? step : { ...step, lane };
    });
}

const span = (step: TraceStep): number => step.end - step.start;

/** Jobs of a trace in start order: runs whose train and evaluate steps both ended, and ensembles. */
export function tracedJobs(steps: readonly TraceStep[]): TracedJob[] {
  const runs = new Map<string, { train?: TraceStep; evaluate?: TraceStep }>();
  const jobs: TracedJob[] = [];
  for (const step of steps) {
    if (step.step === 'evaluate-ensemble' && step.manifest) {
      jobs.push({
        kind: 'ensemble',
        key: step.manifest,
        lane: step.lane ?? '',
        train: null,
        evaluate: step,
        start: step.start,
        end: step.end,
        work: span(step),
      });
      continue;
    }
    if (step.config === null || (step.step !== 'train' && step.step !== 'evaluate')) continue;
    const entry = runs.get(step.config) ?? {};
    entry[step.step] = step;
    runs.set(step.config, entry);
  }
  for (const [key, { train, evaluate }] of runs) {
    if (!train || !evaluate) continue;
    jobs.push({
      kind: 'run',
      key,
      lane: train.lane ?? '',
      train,
      evaluate,
      start: train.start,
      end: evaluate.end,
      work: span(train) + span(evaluate),
    });
  }
  return jobs.sort((a, b) => a.start - b.start);
}

/** `configs/gen-001/round-0003/c07.yaml` -> {generation 1, round 3, candidate c07}; null for anything else. */
export function jobOfConfig(config: string): { generation: number; round: number; candidate: string } | null {
  const match = /gen-(\d+)[/\\]round-(\d+)[/\\]([^/\\]+)\.yaml$/.exec(config);
  if (!match) return null;
  return { generation: Number(match[1]), round: Number(match[2]), candidate: match[3] as string };
}
