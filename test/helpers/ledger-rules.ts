// The seed's ledger rules (docs/ledger.md, "Rows appear in the order they were decided"), as a
// reader of ledger.jsonl relies on them: what a copy or an export must pass besides holding
// history's rows. Package rows come from another workflow and are merged by time: they are
// checked only for their own order and against duplicates.
import { ledgerLine, rowTime } from '../../src/ledger/ledger-lines.js';
import type { LedgerRow } from '../../src/ledger/rows.js';

/** Each broken rule, naming the row (1-based, as ledger.jsonl's line); [] when the ledger passes. */
export function ledgerRuleProblems(rows: readonly LedgerRow[]): string[] {
  const problems: string[] = [];
  const lines = new Set<string>();
  const opened = new Set<number>();
  // Generations the ledger opens somewhere (a ledger carried over may begin mid-generation).
  const openings = new Set(rows.flatMap((row) => (row.type === 'generation' ? [row.generation] : [])));
  let generation = 0;
  const runs = new Set<string>();
  const reserveEvals = new Set<string>();
  /** The last row of the generation workflow (package rows skipped). */
  let previous: LedgerRow | null = null;
  let packageTime = '';
  rows.forEach((row, index) => {
    const at = `row ${index + 1} (${row.type})`;
    const line = ledgerLine(row);
    if (lines.has(line)) problems.push(`${at}: a duplicate of an earlier row`);
    lines.add(line);
    if (row.type === 'package') {
      if (row.time < packageTime) problems.push(`${at}: package rows out of time order`);
      packageTime = row.time;
      return;
    }
    if (row.type === 'generation') {
      if (row.generation <= generation) problems.push(`${at}: generation ${row.generation} opened after ${generation}`);
      generation = Math.max(generation, row.generation);
      opened.add(row.generation);
    } else if (openings.has(row.generation) && !opened.has(row.generation))
      problems.push(`${at}: of generation ${row.generation}, which no earlier generation row opens`);
    if (row.type === 'run') runs.add(`${row.generation}/${row.run_id}`);
    if (row.type === 'eval') {
      if (row.role === 'test' && !runs.has(`${row.generation}/${row.run_id}`))
        problems.push(`${at}: a test eval of ${row.run_id} before its run row`);
      if (row.role === 'reserve') reserveEvals.add(`${row.generation}/${row.run_id}/${row.checkpoint_name}`);
    }
    if (row.type === 'champion' || row.type === 'pareto_set') {
      // Right after the eval row that caused it, or after the other of the two that eval caused.
      const follows =
        previous !== null &&
        (previous.type === 'eval' ||
          (previous.type !== row.type && (previous.type === 'champion' || previous.type === 'pareto_set')));
      if (previous === null || !follows) problems.push(`${at}: not right after the eval row that caused it`);
      else if (rowTime(previous) !== row.finished)
        problems.push(`${at}: its time is not that of the eval row that caused it`);
    }
    if (
      row.type === 'reserve_check' &&
      row.status === 'ok' &&
      !reserveEvals.has(`${row.generation}/${row.run_id}/${row.checkpoint_name}`)
    )
      problems.push(
        `${at}: a reserve check of ${row.run_id} ${row.checkpoint_name} with no reserve eval row before it`,
      );
    previous = row;
  });
  return problems;
}
