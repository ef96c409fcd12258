// The ledger as text: one JSON row per line, as the seed's ledger.jsonl holds it.
import type { LedgerRow } from './rows.js';

/** A row as its ledger line (no newline). */
export function ledgerLine(row: LedgerRow): string {
  return JSON.stringify(row);
}

/** A line of a ledger file that is not a row: names the file and line. */
export class LedgerLineError extends Error {
  constructor(
    readonly file: string,
    readonly line: number,
    reason: string,
  ) {
    super(`${file}:${line}: not a ledger row (${reason})`);
    this.name = 'LedgerLineError';
  }
}

export interface ParsedLedger {
  readonly rows: LedgerRow[];
}

/**
 * The rows of a ledger text, refusing a line that is no row (LedgerLineError, naming it). A last
 * line without its newline that does not parse is a write a crash tore: it is left out.
 */
export function parseLedger(text: string, file: string): ParsedLedger {
  const rows: LedgerRow[] = [];
  for (const line of ledgerFileLines(text)) {
    if (line.row !== null) rows.push(line.row);
    else if (!line.last) throw new LedgerLineError(file, line.line, line.reason ?? 'not a row');
  }
  return { rows };
}

/** One line of a ledger file as it is: its row, or why it is not one. */
export interface LedgerFileLine {
  /** Its line number (1 first). */
  readonly line: number;
  readonly text: string;
  readonly row: LedgerRow | null;
  /** Why `row` is null: the line is no JSON object with a `type`. */
  readonly reason: string | null;
  /** The file's last line, with no newline after it: a write that may have been cut off. */
  readonly last: boolean;
}

/** Every non-empty line of a ledger text, rows and lines that are not rows alike (a copy checked against history). */
export function ledgerFileLines(text: string): LedgerFileLine[] {
  const lines: LedgerFileLine[] = [];
  let offset = 0;
  let lineNo = 0;
  while (offset < text.length) {
    const end = text.indexOf('\n', offset);
    const line = end < 0 ? text.slice(offset) : text.slice(offset, end);
    lineNo += 1;
    if (line.trim() !== '') {
      const { row, reason } = rowOf(line);
      lines.push({ line: lineNo, text: line, row, reason, last: end < 0 });
    }
    offset = end < 0 ? text.length : end + 1;
  }
  return lines;
}

function rowOf(line: string): { row: LedgerRow | null; reason: string | null } {
  let row: unknown;
  try {
    row = JSON.parse(line);
  } catch (error) {
    return { row: null, reason: (error as Error).message };
  }
  if (typeof row !== 'object' || row === null || typeof (row as { type?: unknown }).type !== 'string')
    return { row: null, reason: 'no "type" field' };
  return { row: row as LedgerRow, reason: null };
}

/**
 * The rows of `rows` that `have` lacks, in their order: each row counts as often as it occurs
 * (a row is its whole line, times included), so a row is never added twice and never lost.
 * Two rows of different times cannot be the same line, so only rows whose time the other list
 * also holds are written out and compared: matching a loop's current run (a few rows) against
 * its whole copy costs a look-up per copy row, not a JSON line per row.
 */
export function missingRows(have: readonly LedgerRow[], rows: readonly LedgerRow[]): LedgerRow[] {
  if (rows.length === 0) return [];
  if (have.length === 0) return [...rows];
  const rowTimes = new Set(rows.map(rowTime));
  const counts = new Map<string, number>();
  const haveTimes = new Set<string>();
  for (const row of have) {
    const time = rowTime(row);
    if (!rowTimes.has(time)) continue;
    haveTimes.add(time);
    const line = ledgerLine(row);
    counts.set(line, (counts.get(line) ?? 0) + 1);
  }
  const missing: LedgerRow[] = [];
  for (const row of rows) {
    if (!haveTimes.has(rowTime(row))) {
      missing.push(row);
      continue;
    }
    const line = ledgerLine(row);
    const left = counts.get(line) ?? 0;
    if (left > 0) counts.set(line, left - 1);
    else missing.push(row);
  }
  return missing;
}

/** A row's time, for merging the generation's and packaging's rows into one ledger. */
export function rowTime(row: LedgerRow): string {
  switch (row.type) {
    case 'generation':
      return row.started;
    case 'package':
    case 'split':
    case 'dispatch':
      return row.time;
    default:
      return row.finished;
  }
}

/** Package rows go in before the first generation-workflow row that happened after them (both lists are in order). */
export function mergeByTime(generationRows: readonly LedgerRow[], packageRows: readonly LedgerRow[]): LedgerRow[] {
  const rows: LedgerRow[] = [];
  let next = 0;
  for (const row of generationRows) {
    while (next < packageRows.length && rowTime(packageRows[next] as LedgerRow) < rowTime(row))
      rows.push(packageRows[next++] as LedgerRow);
    rows.push(row);
  }
  rows.push(...packageRows.slice(next));
  return rows;
}

/** Generations below the newest that no `generation` row opens: their record is in neither history nor the copy. */
export function missingGenerations(rows: readonly LedgerRow[]): number[] {
  const opened = new Set(rows.filter((row) => row.type === 'generation').map((row) => row.generation));
  const newest = Math.max(
    0,
    ...rows.map((row) => ('generation' in row && typeof row.generation === 'number' ? row.generation : 0)),
  );
  const missing: number[] = [];
  for (let generation = 1; generation <= newest; generation += 1) if (!opened.has(generation)) missing.push(generation);
  return missing;
}
