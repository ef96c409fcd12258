// Which of history's rows the copy holds, kept from pass to pass so that a keeper pass costs the
// rows that are new, not the whole ledger. A row is its whole JSON line (times included); each
// line of the copy vouches for one row of history.
import { createHash } from 'node:crypto';
import { ledgerLine } from '../ledger/ledger-lines.js';
import type { LedgerRow } from '../ledger/rows.js';

function digest(row: LedgerRow): string {
  return createHash('sha1').update(ledgerLine(row)).digest('base64');
}

export interface Segment {
  readonly key: string;
  readonly rows: readonly LedgerRow[];
}

export class CopyIndex {
  /** Every line of the copy, counted. */
  private readonly copy = new Map<string, number>();
  /** Lines of the copy no row of a segment synced so far has vouched for. */
  private unclaimed = new Map<string, number>();
  /** Rows of each segment already found in the copy or appended. */
  private synced = new Map<string, number>();

  constructor(copyRows: readonly LedgerRow[]) {
    for (const row of copyRows) this.count(this.copy, digest(row));
    this.restart();
  }

  /**
   * The rows of the segments that the copy lacks, in segment order. Call `appended` once they
   * are written. A segment that is gone (a reset replaced its run) or shrank starts the count over.
   */
  missing(segments: readonly Segment[]): LedgerRow[] {
    const keys = new Set(segments.map((segment) => segment.key));
    const changed =
      [...this.synced.keys()].some((key) => !keys.has(key)) ||
      segments.some((segment) => segment.rows.length < (this.synced.get(segment.key) ?? 0));
    if (changed) this.restart();
    const missing: LedgerRow[] = [];
    for (const segment of segments) {
      for (const row of segment.rows.slice(this.synced.get(segment.key) ?? 0)) {
        const line = digest(row);
        const left = this.unclaimed.get(line) ?? 0;
        if (left > 0) this.unclaimed.set(line, left - 1);
        else missing.push(row);
      }
      this.synced.set(segment.key, segment.rows.length);
    }
    return missing;
  }

  /** Rows written to the copy (each already vouching for the history row it came from). */
  appended(rows: readonly LedgerRow[]): void {
    for (const row of rows) this.count(this.copy, digest(row));
  }

  private restart(): void {
    this.unclaimed = new Map(this.copy);
    this.synced = new Map();
  }

  private count(map: Map<string, number>, line: string): void {
    map.set(line, (map.get(line) ?? 0) + 1);
  }
}
