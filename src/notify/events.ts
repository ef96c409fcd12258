import type { LedgerRow, ReserveCheckRow, RunRow } from '../ledger/rows.js';
import type { EvalSummary, HeldoutResult } from '../rules/types.js';
import type { NotifyEventType } from './settings.js';

// What a webhook is told, read off ledger rows as the ledger copy appends them. Pure: the same
// rows give the same events, so a notifier that restarts from its cursor says the same things.

/** One notification: `id` is stable across redeliveries, for receivers to drop duplicates on. */
export interface NotifyEvent {
  /** `<loop>/<row index>/<type>`: the row's position in the loop's ledger.jsonl (0-based). */
  readonly id: string;
  readonly type: NotifyEventType;
  readonly loop: string;
  readonly row_index: number;
  readonly generation: number;
  /** When it happened (the row's time). */
  readonly time: string;
  /** One line for people (the Slack payload's text). */
  readonly text: string;
  /** The facts, for programs: the row's fields that matter, or the failed runs. */
  readonly details: Record<string, unknown>;
}

/** How many runs in a row failed, and the newest of them (enough to name in a `runs_failing` event). */
export interface FailingRuns {
  readonly count: number;
  readonly last: readonly RunRow[];
}

type MakeEvent = (
  type: NotifyEventType,
  generation: number,
  time: string,
  text: string,
  details: object,
) => NotifyEvent;

const NO_FAILING: FailingRuns = { count: 0, last: [] };

/** Kept of a run's error in an event: the first lines say what went wrong. */
const ERROR_CHARS = 500;

/**
 * Reads events off rows in ledger order. It carries one thing across rows: how many training
 * runs in a row failed (ensemble runs neither count nor break a streak).
 */
export class EventReader {
  private failing: FailingRuns = NO_FAILING;
  /** Package logs by champion, from `launched` rows: the `finished` row that follows names none. */
  private readonly packageLogs = new Map<string, string>();

  constructor(
    private readonly loopId: string,
    /** `runs_failing` fires when a streak reaches this length (once per streak). */
    private readonly runsFailing: number,
  ) {}

  /** The events of the row at `index` of the ledger (often none). */
  read(row: LedgerRow, index: number): NotifyEvent[] {
    const event = (type: NotifyEventType, generation: number, time: string, text: string, details: object) => ({
      id: `${this.loopId}/${index}/${type}`,
      type,
      loop: this.loopId,
      row_index: index,
      generation,
      time,
      text: `Loop ${this.loopId}: ${text}`,
      details: details as Record<string, unknown>,
    });
    return this.eventsOf(row, event);
  }

  private eventsOf(row: LedgerRow, event: MakeEvent): NotifyEvent[] {
    switch (row.type) {
      case 'champion':
        return [
          event(
            'new_champion',
            row.generation,
            row.finished,
            championText(row.generation, row.champion, row.previous),
            {
              champion: row.champion,
              previous: row.previous,
            },
          ),
        ];
      case 'reserve_check':
        // A check that finished after the champion changed decides nothing (docs/ledger.md).
        if (row.stale_champion) return [];
        return [event('reserve_verdict', row.generation, row.finished, reserveText(row), reserveDetails(row))];
      case 'split':
        return [
          event(
            'split_failed',
            row.generation,
            row.time,
            `the split of generation ${row.generation} failed and is not tried again; no training runs until it is fixed and the loop is resumed: ${row.error}`,
            { split_seed: row.split_seed, error: row.error },
          ),
        ];
      case 'generation':
        return [
          event(
            'generation_turnover',
            row.generation,
            row.started,
            row.event === 'start'
              ? `generation ${row.generation} started`
              : `generation ${row.generation} opened (${row.reason}); the champion before it: ${summaryName(row.previous_champion)}`,
            { event: row.event, reason: row.reason, previous_champion: row.previous_champion },
          ),
        ];
      case 'package': {
        const key = `${row.generation}/${row.run_id}/${row.checkpoint_name}`;
        if (row.event === 'launched') {
          if (row.log !== undefined) this.packageLogs.set(key, row.log);
          return [];
        }
        const log = row.log ?? this.packageLogs.get(key);
        this.packageLogs.delete(key);
        const { generation, run_id, epoch, checkpoint_name, exit_code, error } = row;
        return [
          event('package_outcome', generation, row.time, packageText(row, log), {
            event: row.event,
            outcome: packageOutcome(row),
            run_id,
            epoch,
            checkpoint_name,
            exit_code: exit_code ?? null,
            error: error ?? null,
            log: log ?? null,
          }),
        ];
      }
      case 'run':
        return this.readRun(row, event);
      default:
        return [];
    }
  }

  private readRun(row: RunRow, event: MakeEvent): NotifyEvent[] {
    if (row.status === 'ensemble') return [];
    if (row.status !== 'train_failed') {
      this.failing = NO_FAILING;
      return [];
    }
    const count = this.failing.count + 1;
    this.failing = { count, last: [...this.failing.last, row].slice(-this.runsFailing) };
    if (count !== this.runsFailing) return [];
    const runs = this.failing.last.map((run) => ({
      run_id: run.run_id,
      candidate: run.candidate,
      generation: run.generation,
      round: run.round,
      train_rc: run.train_rc,
      error: clip(run.error),
    }));
    const newest = runs[runs.length - 1];
    return [
      event(
        'runs_failing',
        row.generation,
        row.finished,
        `${count} training runs in a row failed; the last, ${row.run_id}: ${clip(row.error) ?? `exit code ${row.train_rc}`}. ` +
          'Check loop.yaml commands.train and the run logs.',
        { count, runs, last_error: newest?.error ?? null },
      ),
    ];
  }
}

function clip(text: string | null): string | null {
  if (text === null) return null;
  return text.length <= ERROR_CHARS ? text : `${text.slice(0, ERROR_CHARS)}…`;
}

function summaryName(summary: EvalSummary | null): string {
  return summary === null ? 'none' : `${summary.candidate} (${summary.run_id}, ${summary.checkpoint_name})`;
}

/** "Fail->Pass 7/60, Pass->Fail 18/240": the two error counts champions are compared on. */
function countsText(result: HeldoutResult | null): string {
  if (result === null) return 'no counts';
  return (
    `Fail->Pass ${result.fail_to_pass_count}/${result.fail_count}, ` +
    `Pass->Fail ${result.pass_to_fail_count}/${result.pass_count}`
  );
}

function championText(generation: number, champion: EvalSummary, previous: EvalSummary | null): string {
  const before =
    previous === null
      ? 'the first of the generation'
      : `before: ${summaryName(previous)}, ${countsText(previous.result)}`;
  return `new champion in generation ${generation}: ${summaryName(champion)}, ${countsText(champion.result)} on test (${before})`;
}

const pText = (p: number | undefined): string => (p === undefined ? '' : ` (p=${p.toPrecision(2)})`);

function reserveText(row: ReserveCheckRow): string {
  const champion = `${row.candidate} (${row.run_id}, ${row.checkpoint_name})`;
  if (row.verdict === 'error')
    return `generation ${row.generation}: the reserve check of champion ${champion} could not run; it is tried again`;
  const verdict = row.verdict === 'pass' ? 'passed' : 'FAILED: the generation advances';
  const reserve = row.reserve;
  const counts =
    reserve === null
      ? ''
      : `; reserve Fail->Pass ${reserve.fail_to_pass_count}/${reserve.fail_count}${pText(row.f2p_p)}, ` +
        `Pass->Fail ${reserve.pass_to_fail_count}/${reserve.pass_count}${pText(row.p2f_p)}`;
  return `generation ${row.generation}: champion ${champion} ${verdict} the reserve check after ${row.test_evals} test evals${counts}`;
}

function reserveDetails(row: ReserveCheckRow): object {
  const { run_id, candidate, checkpoint_name, epoch, test_evals, status, verdict, test, reserve } = row;
  return {
    run_id,
    candidate,
    checkpoint_name,
    epoch,
    test_evals,
    status,
    verdict,
    test,
    reserve,
    f2p_p: row.f2p_p ?? null,
    p2f_p: row.p2f_p ?? null,
    eval_json: row.eval_json,
  };
}

type PackageRowOf = Extract<LedgerRow, { type: 'package' }>;

/** `succeeded`, `failed` (the command exited non-zero), `dropped` (a newer champion replaced it) or `launch_failed`. */
function packageOutcome(row: PackageRowOf): string {
  if (row.event === 'finished') return row.exit_code === 0 ? 'succeeded' : 'failed';
  return row.event;
}

function packageText(row: PackageRowOf, log: string | undefined): string {
  const champion = `the champion ${row.run_id} ${row.checkpoint_name} of generation ${row.generation}`;
  switch (packageOutcome(row)) {
    case 'succeeded':
      return `packaged ${champion}${log ? ` (log: ${log})` : ''}`;
    case 'failed':
      return `packaging ${champion} FAILED with exit code ${row.exit_code ?? 'none'}${log ? ` (log: ${log})` : ''}`;
    case 'dropped':
      return `packaging ${champion} dropped: a newer champion came first`;
    default:
      return `packaging ${champion} could not start: ${row.error ?? 'no reason given'}`;
  }
}
