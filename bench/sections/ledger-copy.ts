// What the ledger copy costs as a loop's ledger grows: the keeper's steady pass (find the rows the
// copy lacks, append them, flushed), reading the copy whole (a keeper's start, a resumption) and
// merging it with history (ledger, report, status). Pure file work on synthetic rows shaped like
// real eval rows: no server, no workflow; the copy adds no event to any history by construction.
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { checkCopy, rowsAfter, type CheckedHistory, type RowSource } from '../../src/ledger-copy/copy-check.js';
import { appendLedgerRows, readCopyText } from '../../src/ledger-copy/copy-files.js';
import { ledgerFileLines } from '../../src/ledger/ledger-lines.js';
import type { LedgerRow } from '../../src/ledger/rows.js';
import type { EvalRow } from '../../src/rules/types.js';
import type { BenchContext } from '../lib/context.js';
import { figure, type Figure } from '../lib/figures.js';
import { timed } from '../lib/stats.js';

const SIZES = [500, 5_000, 50_000] as const;
/** Rows a keeper pass appends in steady state (a few reports' worth). */
const BATCH = 20;
const PASSES = 20;

function evalRow(index: number): EvalRow {
  const counts = {
    fail_to_pass_count: index % 17,
    fail_count: 400,
    fail_to_pass_rate: (index % 17) / 400,
    pass_to_fail_count: index % 23,
    pass_correct_count: 1600 - (index % 23),
    pass_count: 1600,
    pass_to_fail_rate: (index % 23) / 1600,
    macro_f1: 0.9,
    s_f1: 0.88,
  };
  const run = `champ-g001-r${String(Math.floor(index / 30) + 1).padStart(4, '0')}-cand${index % 10}`;
  return {
    type: 'eval',
    generation: 1,
    role: 'test',
    run_id: run,
    candidate: `cand${index % 10}`,
    round: Math.floor(index / 30) + 1,
    checkpoint: `/data/runs/${run}/checkpoint-${String(index % 3).padStart(4, '0')}.pt`,
    checkpoint_name: `checkpoint-${String(index % 3).padStart(4, '0')}.pt`,
    checkpoint_sha256: index.toString(16).padStart(64, '0'),
    epoch: index % 3,
    config_path: `/data/state/configs/gen-001/round-0001/cand${index % 10}.yaml`,
    status: 'ok',
    validation: { epoch: index % 3, fail_to_pass_count: 3, pass_to_fail_count: 5, macro_f1: 0.91, gate_auc: 0.97 },
    result: counts,
    gate_auc: 0.95,
    gate_curve: [-1, -0.5, 0, 0.5, 1].map((threshold) => ({
      threshold,
      fail_to_pass: index % 7,
      pass_to_fail: index % 5,
    })),
    reject_band: { low: -0.2, high: 0.3, chosen_on: 'validation' },
    decided: null,
    eval_json: `/data/state/evals/${run}/checkpoint-${String(index % 3).padStart(4, '0')}.test.json`,
    finished: new Date(Date.UTC(2026, 10, 1) + index * 1000).toISOString(),
  };
}

/** What the ledger copy costs at one size. */
interface CopySize {
  readonly size: number;
  /** The median steady pass (ms), and per row appended (µs). */
  readonly passMs: number;
  readonly perRowUs: number;
  readonly startMs: number;
  readonly readMs: number;
  readonly mergeMs: number;
  /** ledger.jsonl on disk. */
  readonly bytes: number;
}

/** History's rows: the first `count` of the generation's. */
type HistoryOf = (count: number) => CheckedHistory;

export async function runLedgerCopy(
  ctx: BenchContext,
): Promise<{ figures: Figure[]; details: Record<string, unknown> }> {
  const perSize: CopySize[] = [];
  for (const size of SIZES) perSize.push(await measureSize(size, ctx.log));
  return { figures: copyFigures(perSize), details: { sizes: perSize } };
}

/** One size, in a temp folder of its own: a copy of `size` rows, the keeper's start and steady passes, a read and merge. */
async function measureSize(size: number, log: (line: string) => void): Promise<CopySize> {
  const dir = await mkdtemp(path.join(tmpdir(), 'bench-ledger-copy-'));
  try {
    const rows: LedgerRow[] = Array.from({ length: size + BATCH * PASSES }, (_, index) => evalRow(index));
    await appendLedgerRows(dir, rows.slice(0, size));
    const historyOf: HistoryOf = (count) => ({
      generation: { rows: rows.slice(0, count), abandoned: [] },
      packaging: { rows: [], abandoned: [] },
    });
    // The keeper's start: the copy read whole and checked against history's rows so far.
    const start = await timed(async () => checkCopy(ledgerFileLines(await readCopyText(dir)), historyOf(size)));
    const passMs = await steadyPassMs(dir, historyOf, size, start.value.held);
    const read = await timed(() => readCopyText(dir));
    // What `ledger`, `report` and a stopped loop's `status` do with it: check it against history.
    const merge = await timed(() => Promise.resolve(checkCopy(ledgerFileLines(read.value), historyOf(size))));
    const bytes = (await stat(path.join(dir, 'ledger.jsonl'))).size;
    log(
      `ledger copy at ${size} rows: pass ${passMs.toFixed(1)} ms for ${BATCH} new rows, read ${read.ms.toFixed(0)} ms, merge ${merge.ms.toFixed(0)} ms, ${(bytes / 2 ** 20).toFixed(1)} MiB`,
    );
    return {
      size,
      passMs,
      perRowUs: (passMs * 1000) / BATCH,
      startMs: start.ms,
      readMs: read.ms,
      mergeMs: merge.ms,
      bytes,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Steady state: history grows by a batch between passes; the keeper appends the batch. The median pass (ms). */
async function steadyPassMs(
  dir: string,
  historyOf: HistoryOf,
  size: number,
  heldAtStart: Readonly<Record<RowSource, number>>,
): Promise<number> {
  let held = heldAtStart;
  const passes: number[] = [];
  for (let pass = 0; pass < PASSES; pass += 1) {
    const history = historyOf(size + (pass + 1) * BATCH);
    const { ms } = await timed(async () => {
      await appendLedgerRows(dir, rowsAfter(history, held));
      held = { generation: history.generation.rows.length, packaging: 0 };
    });
    passes.push(ms);
  }
  passes.sort((a, b) => a - b);
  return passes[Math.floor(passes.length / 2)] ?? 0;
}

/** Each size's pass, start and read; then how the pass and the read + check grow from 5,000 to 50,000 rows. */
function copyFigures(perSize: readonly CopySize[]): Figure[] {
  const figures = perSize.flatMap(sizeFigures);
  const at = (size: number) => perSize.find((entry) => entry.size === size);
  const small = at(5_000);
  const large = at(50_000);
  if (small && large) figures.push(...growthFigures(small, large));
  return figures;
}

function sizeFigures(entry: CopySize): Figure[] {
  return [
    figure(
      'ledger-copy',
      `keeper pass, ${BATCH} new rows on a ${entry.size.toLocaleString('en-US')}-row copy (per row appended)`,
      entry.perRowUs / 1000,
      'ms',
      null,
      `${entry.passMs.toFixed(1)} ms a pass: history's rows past those the copy holds, one flushed append`,
    ),
    figure(
      'ledger-copy',
      `keeper start on a ${entry.size.toLocaleString('en-US')}-row copy`,
      entry.startMs,
      'ms',
      null,
      'read the copy and check it against history (a worker start, a changed file, every 10 minutes)',
    ),
    figure(
      'ledger-copy',
      `read the whole copy, ${entry.size.toLocaleString('en-US')} rows (${(entry.bytes / 2 ** 20).toFixed(1)} MiB)`,
      entry.readMs,
      'ms',
      null,
      'a keeper start, a resumption from the copy',
    ),
  ];
}

function growthFigures(small: CopySize, large: CopySize): Figure[] {
  return [
    figure(
      'ledger-copy',
      'keeper pass growth, 5,000 -> 50,000 rows (10x rows)',
      large.passMs / small.passMs,
      'x',
      { op: '<=', value: 2 },
      'a pass costs the new rows, not the ledger',
    ),
    figure(
      'ledger-copy',
      'copy read + check growth, 5,000 -> 50,000 rows (10x rows)',
      (large.readMs + large.mergeMs) / (small.readMs + small.mergeMs),
      'x',
      { op: '<=', value: 10 },
      'ledger, report, status of a stopped loop',
    ),
  ];
}
