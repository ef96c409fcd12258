import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { foldGenerationRun, foldPackagingRun } from '../../src/ledger/history/fold.js';
import { ledgerLine, mergeByTime } from '../../src/ledger/ledger-lines.js';
import { idlePackaging, type PackagingState } from '../../src/ledger/packaging-fold.js';
import type { LedgerRow } from '../../src/ledger/rows.js';
import { generationRunOf, packagingRunOf } from '../../src/ledger/history/index.js';
import { generation, packaging } from '../../src/workflows/index.js';
import { HISTORIES_DIR, loadHistories, type RecordedHistory } from './histories.js';

// The ledger rows every recorded history folds to, kept byte for byte: a change to how history is
// read (decoding, handling order, patch markers, the folds) must give the same rows from every
// history, old code's included. `WRITE_LEDGER_ROWS=1` writes them (after recording new histories).

const ROWS_DIR = fileURLToPath(new URL('./ledger-rows/', import.meta.url));

/** The rows of each loop among the histories: its generation runs, then its packaging runs, merged as the export merges them. */
function loopRows(histories: readonly RecordedHistory[]): Map<string, string> {
  const byLoop = new Map<string, { generation: RecordedHistory[]; packaging: RecordedHistory[] }>();
  for (const recorded of histories) {
    const kind = recorded.workflowType === generation.name ? 'generation' : recorded.workflowType;
    if (kind !== 'generation' && kind !== packaging.name) continue;
    const folder = path.relative(HISTORIES_DIR, path.dirname(recorded.file)) || 'current';
    const key = `${folder.replace(/[\\/]/g, '--')}--${recorded.scenario}`;
    const loop = byLoop.get(key) ?? { generation: [], packaging: [] };
    (kind === 'generation' ? loop.generation : loop.packaging).push(recorded);
    byLoop.set(key, loop);
  }
  const rows = new Map<string, string>();
  for (const [key, loop] of byLoop) {
    const generationRows: LedgerRow[] = [];
    for (const run of loop.generation)
      generationRows.push(...foldGenerationRun(generationRunOf(run.history.events ?? [])).rows);
    let state: PackagingState = idlePackaging;
    const packageRows: LedgerRow[] = [];
    for (const run of loop.packaging) {
      const folded = foldPackagingRun(packagingRunOf(run.history.events ?? []), state);
      state = folded.state;
      packageRows.push(...folded.rows);
    }
    rows.set(
      key,
      mergeByTime(generationRows, packageRows)
        .map((row) => `${ledgerLine(row)}\n`)
        .join(''),
    );
  }
  return rows;
}

describe('the ledger rows of the recorded histories', () => {
  it('are those kept in test/replay/ledger-rows, byte for byte', async () => {
    const rows = loopRows(await loadHistories());
    expect(rows.size).toBeGreaterThan(4);
    if (process.env.WRITE_LEDGER_ROWS === '1') {
      await mkdir(ROWS_DIR, { recursive: true });
      for (const [key, text] of rows) await writeFile(path.join(ROWS_DIR, `${key}.jsonl`), text);
    }
    let count = 0;
    for (const [key, text] of rows) {
      const kept = await readFile(path.join(ROWS_DIR, `${key}.jsonl`), 'utf8');
      expect(text, key).toBe(kept);
      count += text.split('\n').length - 1;
    }
    // Every loop gives rows: a history read as empty would pass an empty file.
    for (const [key, text] of rows) expect(text.length, key).toBeGreaterThan(0);
    console.log(`${rows.size} recorded loops fold to ${count} ledger rows, as kept`);
  });
});
