// A ledger copy checked against what history holds (issue 24): which lines are the loop's rows,
// which are not (torn, duplicated, of a timeline a reset abandoned, of no run of the loop), which
// rows history holds that the copy lacks, and the one order the copy and every export share.
// Pure: the keeper repairs the file by what this says, `ledger` and `report` export by it.
import { ledgerLine, mergeByTime, type LedgerFileLine } from '../ledger/ledger-lines.js';
import type { LedgerRow } from '../ledger/rows.js';

/** The two workflows rows come from: each keeps its rows in its own order; the ledger merges them by time. */
export type RowSource = 'generation' | 'packaging';

function rowSource(row: LedgerRow): RowSource {
  return row.type === 'package' ? 'packaging' : 'generation';
}

/** What history holds of one source. */
interface SourceHistory {
  /** Its rows on the loop's current timeline, in history's order. */
  readonly rows: readonly LedgerRow[];
  /** Rows of runs a reset replaced (their timeline was abandoned): a copy's row found only here is not the loop's. */
  readonly abandoned: readonly LedgerRow[];
}

export type CheckedHistory = Readonly<Record<RowSource, SourceHistory>>;

/** Whether a ledger line was in the copy as the checker last left it. */
export type KnownLines = (line: string) => boolean;

/** Why a line of the copy is not part of the ledger. */
type RemovedKind = 'not_a_row' | 'torn' | 'duplicate' | 'abandoned' | 'foreign';

/** A line the repaired copy leaves out: kept, as it was, in the repairs log. */
interface RemovedLine {
  readonly kind: RemovedKind;
  /** Its line number in the copy. */
  readonly line: number;
  readonly text: string;
}

export interface CopyCheck {
  /** The whole ledger, in its one order: `kept`, then `tail`. */
  readonly ledger: LedgerRow[];
  /**
   * The copy's rows once repaired: the file as it is when `whole`, else the rows it should hold up
   * to the last of history's rows it holds (gaps filled, order restored, bad lines left out).
   */
  readonly kept: LedgerRow[];
  /** History's rows after the last the copy holds, each source in its order, merged by time: what an append adds. */
  readonly tail: LedgerRow[];
  /** The copy is as it should be: appending `tail` makes it the whole ledger. */
  readonly whole: boolean;
  /** The copy's last row has no newline after it (a crash between the row and its newline): one goes in before an append. */
  readonly unterminated: boolean;
  readonly removed: RemovedLine[];
  /** Rows history holds that the copy lacked between rows it holds: `kept` has them in their place. */
  readonly restored: number;
  /** Rows of history the copy held out of history's order. */
  readonly reordered: number;
  /** Rows only the copy holds (their runs are gone from history). */
  readonly copyOnly: number;
  /** How many of each source's history rows the ledger holds: every one. */
  readonly held: Readonly<Record<RowSource, number>>;
}

interface SourceCheck {
  /** The source's rows as the repaired copy holds them. */
  readonly kept: LedgerRow[];
  readonly tail: LedgerRow[];
  readonly whole: boolean;
  readonly restored: number;
  readonly reordered: number;
  readonly copyOnly: number;
}

function multiset(rows: readonly LedgerRow[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const row of rows) {
    const line = ledgerLine(row);
    counts.set(line, (counts.get(line) ?? 0) + 1);
  }
  return counts;
}

function take(counts: Map<string, number>, line: string): boolean {
  const left = counts.get(line) ?? 0;
  if (left === 0) return false;
  counts.set(line, left - 1);
  return true;
}

/**
 * One source's rows of the copy against its history. A row history holds vouches for itself (the
 * first of history's rows with its line not claimed yet). A row history lacks is the copy's alone
 * (its run is gone: retention, a delete), kept, unless it repeats a row, belongs to a timeline a
 * reset abandoned, or `known` is given (the lines the keeper itself left in the copy) and lacks
 * it: then someone else wrote it. The repaired order is history's, each row the copy alone holds
 * staying after the history row it followed.
 */
function checkSource(
  lines: readonly { readonly line: LedgerFileLine; readonly row: LedgerRow }[],
  history: SourceHistory,
  known: KnownLines | null,
  removed: RemovedLine[],
): SourceCheck {
  const positions = new Map<string, number[]>();
  history.rows.forEach((row, index) => {
    const line = ledgerLine(row);
    const list = positions.get(line);
    if (list) list.push(index);
    else positions.set(line, [index]);
  });
  const inHistory = multiset(history.rows);
  const abandoned = multiset(history.abandoned);
  for (const [line, count] of inHistory)
    if (abandoned.has(line)) abandoned.set(line, (abandoned.get(line) ?? 0) - count);
  const copyOnlyLines = new Set<string>();
  /** Rows only the copy holds, by the history row they follow (-1: before all). */
  const after = new Map<number, LedgerRow[]>();
  let highest = -1;
  let vouched = 0;
  let reordered = 0;
  let inOrder = true;
  let copyOnly = 0;
  for (const { line, row } of lines) {
    const text = ledgerLine(row);
    const index = positions.get(text)?.shift();
    if (index !== undefined) {
      if (index !== vouched) inOrder = false;
      if (index < highest) reordered += 1;
      highest = Math.max(highest, index);
      vouched += 1;
      continue;
    }
    const remove = (kind: RemovedKind): void => {
      removed.push({ kind, line: line.line, text: line.text });
    };
    if (take(abandoned, text)) remove('abandoned');
    else if (inHistory.has(text) || copyOnlyLines.has(text)) remove('duplicate');
    else if (known === null || known(text)) {
      copyOnlyLines.add(text);
      copyOnly += 1;
      const list = after.get(highest);
      if (list) list.push(row);
      else after.set(highest, [row]);
    } else remove('foreign');
  }
  const kept: LedgerRow[] = [...(after.get(-1) ?? [])];
  for (let index = 0; index <= highest; index += 1)
    kept.push(history.rows[index] as LedgerRow, ...(after.get(index) ?? []));
  return {
    kept,
    tail: history.rows.slice(highest + 1),
    whole: inOrder,
    restored: highest + 1 - vouched,
    reordered,
    copyOnly,
  };
}

/**
 * The copy's lines (every non-empty one, rows or not) against what history holds of the loop.
 * `known`: the lines the checker knows were in the copy as it left it (the keeper's own); without
 * it (an export, a keeper's first look) every row history lacks is taken for the copy's alone.
 */
export function checkCopy(
  lines: readonly LedgerFileLine[],
  history: CheckedHistory,
  known: KnownLines | null = null,
): CopyCheck {
  const removed: RemovedLine[] = [];
  const bySource: Record<RowSource, { line: LedgerFileLine; row: LedgerRow }[]> = { generation: [], packaging: [] };
  for (const line of lines) {
    if (line.row === null) removed.push({ kind: line.last ? 'torn' : 'not_a_row', line: line.line, text: line.text });
    else bySource[rowSource(line.row)].push({ line, row: line.row });
  }
  const generation = checkSource(bySource.generation, history.generation, known, removed);
  const packaging = checkSource(bySource.packaging, history.packaging, known, removed);
  removed.sort((a, b) => a.line - b.line);
  const whole = removed.length === 0 && generation.whole && packaging.whole;
  // A whole copy keeps its own order (package rows sit where they arrived); a repaired one merges by time.
  const kept = whole ? lines.map((line) => line.row as LedgerRow) : mergeByTime(generation.kept, packaging.kept);
  const tail = mergeByTime(generation.tail, packaging.tail);
  const last = lines.at(-1);
  return {
    ledger: [...kept, ...tail],
    kept,
    tail,
    whole,
    unterminated: whole && last !== undefined && last.last,
    removed,
    restored: generation.restored + packaging.restored,
    reordered: generation.reordered + packaging.reordered,
    copyOnly: generation.copyOnly + packaging.copyOnly,
    held: heldRows(history),
  };
}

/** History's rows past those a whole copy holds (`held` of each source): what a keeper pass appends. */
export function rowsAfter(history: CheckedHistory, held: Readonly<Record<RowSource, number>>): LedgerRow[] {
  return mergeByTime(history.generation.rows.slice(held.generation), history.packaging.rows.slice(held.packaging));
}

/** How many rows of each source history holds: what a copy holds once a pass has appended. */
export function heldRows(history: CheckedHistory): Record<RowSource, number> {
  return { generation: history.generation.rows.length, packaging: history.packaging.rows.length };
}

/** What a check found wrong, in a few words ('' when the copy is whole). */
export function copyProblemWords(check: CopyCheck): string {
  const parts: string[] = [];
  const kinds: Record<RemovedKind, string> = {
    not_a_row: 'not a ledger row',
    torn: 'a row torn off at the end',
    duplicate: 'a row the copy already holds',
    abandoned: 'a row of a timeline a reset replaced',
    foreign: 'a row history does not hold that this worker never wrote',
  };
  for (const [kind, words] of Object.entries(kinds) as [RemovedKind, string][]) {
    const lines = check.removed.filter((line) => line.kind === kind).map((line) => line.line);
    if (lines.length > 0) parts.push(`${lineList(lines)} ${lines.length === 1 ? 'is' : 'are each'} ${words}`);
  }
  if (check.restored > 0) parts.push(`${check.restored} of history's rows were missing between rows it holds`);
  if (check.reordered > 0) parts.push(`${check.reordered} rows were out of history's order`);
  return parts.join('; ');
}

function lineList(lines: readonly number[]): string {
  const shown = lines.slice(0, 5).join(', ');
  const more = lines.length > 5 ? ` and ${lines.length - 5} more` : '';
  return `${lines.length === 1 ? 'line' : 'lines'} ${shown}${more}`;
}
