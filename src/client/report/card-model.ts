// Each GPU card the loop's jobs ran on, over time, from ledger rows only (pure): a job's time on
// its card is between its dispatch rows (`reserved` when its step started, `finished` when its
// last row was decided); the memory it held is its run row's `gpu_peak_mib` (else the need the
// lane admitted it by, dispatch `peak_usage`); a run row's `oom_retries` are its out-of-memory
// retries, and the time from its `first_started` (else `started`) to its dispatch `reserved` is
// what it waited for the card. The card's size is its dispatch rows' `device_total_mib` (not a seed
// field; absent from older lanes, and then unknown).
import type { DispatchRow, LedgerRow, RunRow } from '../../ledger/rows.js';

/** One job's time on a card. */
export interface CardJob {
  readonly job: string;
  readonly kind: DispatchRow['kind'];
  readonly startMs: number;
  readonly endMs: number;
  /** What it held: its run's peak when the ledger has it, else its admitted need (`peakKnown` false). */
  readonly heldMiB: number;
  readonly peakKnown: boolean;
  readonly needMiB: number;
  readonly oomRetries: number;
  /** From when it waited for room before its step started (null: no wait the ledger shows). */
  readonly waitFromMs: number | null;
}

/** A card: a lane's task queue and its physical device, with its jobs by start. */
export interface Card {
  readonly worker: string;
  readonly device: number;
  readonly jobs: readonly CardJob[];
  /** Its size as its lane read it (the largest its dispatch rows say), in MiB; null: no row says. */
  readonly totalMiB: number | null;
}

/** A run's wait: from its first attempt's (or its) start to when its step started, when that is later. */
function waitFrom(run: RunRow | undefined, startMs: number): number | null {
  if (run === undefined) return null;
  const from = Date.parse(run.first_started ?? run.started);
  return Number.isFinite(from) && from < startMs ? from : null;
}

/** The latest time any row names: where a job still on its card at export ends. */
function lastTimeMs(rows: readonly LedgerRow[]): number {
  let last = 0;
  for (const row of rows) {
    const time = 'time' in row ? row.time : 'finished' in row ? row.finished : undefined;
    const ms = typeof time === 'string' ? Date.parse(time) : NaN;
    if (Number.isFinite(ms)) last = Math.max(last, ms);
  }
  return last;
}

/** One job from its dispatch rows and its run row (absent for a reserve check). */
function cardJob(
  reserved: DispatchRow,
  end: DispatchRow | undefined,
  run: RunRow | undefined,
  lastMs: number,
): CardJob {
  const startMs = Date.parse(reserved.time);
  const peak = run?.gpu_peak_mib;
  return {
    job: reserved.job,
    kind: reserved.kind,
    startMs,
    endMs: Math.max(startMs, end === undefined ? lastMs : Date.parse(end.time)),
    heldMiB: peak ?? reserved.peak_usage.gpu_mib,
    peakKnown: peak !== undefined,
    needMiB: reserved.peak_usage.gpu_mib,
    oomRetries: run?.oom_retries ?? 0,
    waitFromMs: waitFrom(run, startMs),
  };
}

/** Every card the ledger's dispatch rows name, with its jobs (cards by worker and device, jobs by start). */
export function cardsOf(rows: readonly LedgerRow[]): Card[] {
  const dispatch = rows.filter((row): row is DispatchRow => row.type === 'dispatch');
  const runs = new Map<string, RunRow>();
  for (const row of rows) if (row.type === 'run') runs.set(row.run_id, row);
  const lastMs = lastTimeMs(rows);
  const cards = new Map<string, { worker: string; device: number; jobs: CardJob[]; totalMiB: number | null }>();
  for (const reserved of dispatch.filter((row) => row.event === 'reserved')) {
    const end = dispatch.find(
      (row) => row.event !== 'reserved' && row.job === reserved.job && row.worker === reserved.worker,
    );
    const key = `${reserved.worker}\u0000${reserved.physical_device}`;
    const card = cards.get(key) ?? {
      worker: reserved.worker,
      device: reserved.physical_device,
      jobs: [],
      totalMiB: null,
    };
    card.jobs.push(cardJob(reserved, end, runs.get(reserved.job), lastMs));
    const size = reserved.device_total_mib;
    if (typeof size === 'number' && size > 0) card.totalMiB = Math.max(card.totalMiB ?? 0, size);
    cards.set(key, card);
  }
  return [...cards.values()]
    .map((card) => ({ ...card, jobs: card.jobs.sort((a, b) => a.startMs - b.startMs) }))
    .sort((a, b) => a.worker.localeCompare(b.worker) || a.device - b.device);
}

/** One piece of a job's stacked bar: from `fromMs` to `toMs` it sits on `baseMiB` of its card's jobs. */
export interface StackPiece {
  readonly job: number;
  readonly fromMs: number;
  readonly toMs: number;
  readonly baseMiB: number;
  readonly heldMiB: number;
}

/**
 * The card's jobs stacked over time: between any two starts or ends, the jobs on the card then,
 * each on those that started before it. Their tops are what the card's jobs held at once.
 */
export function stackPieces(jobs: readonly CardJob[]): StackPiece[] {
  const times = [...new Set(jobs.flatMap((job) => [job.startMs, job.endMs]))].sort((a, b) => a - b);
  const pieces: StackPiece[] = [];
  for (let index = 0; index + 1 < times.length; index += 1) {
    const fromMs = times[index] as number;
    const toMs = times[index + 1] as number;
    let baseMiB = 0;
    jobs.forEach((job, at) => {
      if (job.startMs > fromMs || job.endMs <= fromMs) return;
      pieces.push({ job: at, fromMs, toMs, baseMiB, heldMiB: job.heldMiB });
      baseMiB += job.heldMiB;
    });
  }
  return pieces;
}
