import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ledgerSources } from '../../src/client/ledger-export.js';
import { ledgerCopyPath } from '../../src/ledger-copy/copy-files.js';
import type { HistoryLedger } from '../../src/ledger-copy/history-runs.js';
import { loopLedger } from '../../src/ledger-copy/loop-ledger.js';
import { ledgerLine } from '../../src/ledger/ledger-lines.js';
import type { LedgerRow } from '../../src/ledger/rows.js';
import { generationAt } from '../helpers/generation-rows.js';

const gen = generationAt;

/** What HistoryRuns.read gives: `rows` of the generation workflow, or none left at all. */
function history(rows: readonly LedgerRow[] | null): HistoryLedger {
  const none = { rows: [], abandoned: [] };
  return {
    generationRows: [...(rows ?? [])],
    packageRows: [],
    state: null,
    // No generation run left (`input` null) when `rows` is null; one run's input otherwise.
    input: rows === null ? null : ({ loopId: 'l', config: {} } as unknown as HistoryLedger['input']),
    stateDir: null,
    running: false,
    segments: [],
    checked: { generation: rows === null ? none : { rows, abandoned: [] }, packaging: none },
  };
}

describe("a loop's ledger from history and its copy", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'loop-ledger-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const damaged = () => `${ledgerLine(gen(1))}\nnot json\n${ledgerLine(gen(2))}\n`;

  it("with history: a damaged copy gives history's rows and a note that says what is wrong and who repairs it", async () => {
    await writeFile(ledgerCopyPath(dir), damaged());
    const ledger = await loopLedger(history([gen(1), gen(2), gen(3)]), { stateDir: dir });
    expect(ledger.rows).toEqual([gen(1), gen(2), gen(3)]);
    expect(ledgerSources(ledger)).toContain(
      "differs from history (line 2 is not a ledger row): this is history's ledger; the orchestrator's ledger keeper repairs the copy",
    );
  });

  it('with no history left: a damaged copy is refused, naming the line and what to do; on request the rows before the damage', async () => {
    await writeFile(ledgerCopyPath(dir), damaged());
    await expect(loopLedger(history(null), { stateDir: dir })).rejects.toThrow(
      `${ledgerCopyPath(dir)}:2: not a ledger row (`,
    );
    await expect(loopLedger(history(null), { stateDir: dir })).rejects.toThrow(
      'no history of the loop is left to repair the copy from: mend or delete line 2 by hand, or read the rows before it with --up-to-damage',
    );
    const ledger = await loopLedger(history(null), { stateDir: dir }, { upToDamage: true });
    expect(ledger.rows).toEqual([gen(1)]);
    expect(ledgerSources(ledger)).toContain('read up to line 2 of the copy in');
  });

  it('with no history left: a row a crash tore at the end is left out, not refused', async () => {
    await writeFile(ledgerCopyPath(dir), `${ledgerLine(gen(1))}\n${ledgerLine(gen(2)).slice(0, 30)}`);
    expect((await loopLedger(history(null), { stateDir: dir })).rows).toEqual([gen(1)]);
  });
});
