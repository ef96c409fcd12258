import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkCopy, copyProblemWords, type CheckedHistory } from '../../src/ledger-copy/copy-check.js';
import { ledgerFileLines, ledgerLine } from '../../src/ledger/ledger-lines.js';
import type { LedgerRow } from '../../src/ledger/rows.js';
import { generationAt, secondsIn } from '../helpers/generation-rows.js';

const time = secondsIn;
const gen = generationAt;

/** A package row at second `n`. */
const pkg = (n: number): LedgerRow => ({
  type: 'package',
  event: 'finished',
  generation: 1,
  run_id: `r${n}`,
  epoch: 1,
  checkpoint_name: 'c',
  time: time(n),
  exit_code: 0,
});

const text = (rows: readonly LedgerRow[]): string => rows.map((row) => `${ledgerLine(row)}\n`).join('');

function history(
  generation: readonly LedgerRow[],
  packaging: readonly LedgerRow[] = [],
  options: { abandoned?: LedgerRow[] } = {},
): CheckedHistory {
  return {
    generation: { rows: generation, abandoned: options.abandoned ?? [] },
    packaging: { rows: packaging, abandoned: [] },
  };
}

/** The lines a keeper left in the copy: those of `rows`. */
const knownOf = (rows: readonly LedgerRow[]) => {
  const lines = new Set(rows.map(ledgerLine));
  return (line: string) => lines.has(line);
};

const check = (copy: string, of: CheckedHistory, known: ((line: string) => boolean) | null = null) =>
  checkCopy(ledgerFileLines(copy), of, known);

describe('a ledger copy checked against history', () => {
  const rows = [gen(1), gen(3), gen(5), gen(7)];

  it('a copy behind history is whole: what it lacks is its tail, appended', () => {
    const result = check(text(rows.slice(0, 2)), history(rows));
    expect(result.whole).toBe(true);
    expect(result.tail).toEqual(rows.slice(2));
    expect(result.ledger).toEqual(rows);
    expect(copyProblemWords(result)).toBe('');
  });

  it('an empty or deleted copy is whole and gets every row', () => {
    expect(check('', history(rows))).toMatchObject({ whole: true, kept: [], tail: rows, ledger: rows });
  });

  it('a line that is not a row is left out, named by its line, and the copy is rewritten', () => {
    const copy = `${ledgerLine(rows[0] as LedgerRow)}\nnot json\n${text(rows.slice(1, 3))}`;
    const result = check(copy, history(rows));
    expect(result.whole).toBe(false);
    expect(result.removed).toEqual([{ kind: 'not_a_row', line: 2, text: 'not json' }]);
    expect(result.kept).toEqual(rows.slice(0, 3));
    expect(result.ledger).toEqual(rows);
    expect(copyProblemWords(result)).toBe('line 2 is not a ledger row');
  });

  it('a row torn at the end is left out as torn; a whole last row without its newline only needs one', () => {
    const torn = check(`${text(rows.slice(0, 1))}${ledgerLine(rows[1] as LedgerRow).slice(0, 20)}`, history(rows));
    expect(torn.removed.map((line) => line.kind)).toEqual(['torn']);
    expect(torn.ledger).toEqual(rows);
    const unterminated = check(text(rows.slice(0, 2)).slice(0, -1), history(rows));
    expect(unterminated).toMatchObject({ whole: true, unterminated: true, tail: rows.slice(2) });
  });

  it('a duplicated line is left out once, the row kept once', () => {
    const copy = text([rows[0], rows[1], rows[1], rows[2]] as LedgerRow[]);
    const result = check(copy, history(rows));
    expect(result.removed).toEqual([{ kind: 'duplicate', line: 3, text: ledgerLine(rows[1] as LedgerRow) }]);
    expect(result.ledger).toEqual(rows);
  });

  it("a row history does not hold that the keeper never wrote is left out as foreign; with no keeper's memory (an export) it is kept", () => {
    const stranger = gen(4);
    const copy = text([rows[0], rows[1], stranger, rows[2]] as LedgerRow[]);
    const result = check(copy, history(rows), knownOf(rows.slice(0, 3)));
    expect(result.removed).toEqual([{ kind: 'foreign', line: 3, text: ledgerLine(stranger) }]);
    expect(result.ledger).toEqual(rows);
    expect(check(copy, history(rows))).toMatchObject({ whole: true, copyOnly: 1, removed: [] });
  });

  it("a row of a run whose history is gone is kept, in its place, and counted as the copy's alone", () => {
    const gone = gen(0);
    // The keeper wrote it from history; its run has been deleted since (retention, an operator).
    const result = check(text([gone, ...rows.slice(0, 2)]), history(rows), knownOf([gone, ...rows.slice(0, 2)]));
    expect(result).toMatchObject({ whole: true, copyOnly: 1, removed: [] });
    expect(result.ledger).toEqual([gone, ...rows]);
  });

  it('a row of a timeline a reset abandoned is left out as abandoned', () => {
    const reset = gen(6);
    const result = check(
      text([...rows.slice(0, 3), reset]),
      history(rows, [], { abandoned: [...rows.slice(0, 3), reset] }),
    );
    expect(result.removed).toEqual([{ kind: 'abandoned', line: 4, text: ledgerLine(reset) }]);
    expect(result.ledger).toEqual(rows);
  });

  it('a gap (a line deleted in the middle) is filled in place: the export is never scrambled', () => {
    const result = check(text([rows[0], rows[2]] as LedgerRow[]), history(rows));
    expect(result).toMatchObject({ whole: false, restored: 1, reordered: 0 });
    expect(result.kept).toEqual(rows.slice(0, 3));
    expect(result.tail).toEqual(rows.slice(3));
    expect(copyProblemWords(result)).toBe("1 of history's rows were missing between rows it holds");
  });

  it("rows out of order are put back in history's order", () => {
    const result = check(text([rows[1], rows[0], rows[2]] as LedgerRow[]), history(rows));
    expect(result).toMatchObject({ whole: false, reordered: 1 });
    expect(result.ledger).toEqual(rows);
  });

  it('package rows stay where they arrived in a whole copy, and go in by time after a repair', () => {
    const packages = [pkg(2), pkg(6)];
    // The keeper appended package row 2 after generation row 3 (it came a pass later).
    const arrived = [rows[0], rows[1], packages[0]] as LedgerRow[];
    const whole = check(text(arrived), history(rows, packages));
    expect(whole.whole).toBe(true);
    expect(whole.ledger).toEqual([...arrived, rows[2], packages[1], rows[3]]);
    const repaired = check(`${text(arrived)}garbage\n`, history(rows, packages));
    expect(repaired.ledger).toEqual([rows[0], packages[0], rows[1], rows[2], packages[1], rows[3]]);
  });

  it('with no run of a source in history, every row of it the copy holds is kept', () => {
    const packages = [pkg(2), pkg(4)];
    const result = check(text([gen(1), ...packages]), history(rows), knownOf([gen(1), ...packages]));
    expect(result).toMatchObject({ whole: true, copyOnly: 2 });
    expect(result.ledger).toEqual([gen(1), ...packages, ...rows.slice(1)]);
  });

  it("any damage to a copy behind history ends in history's rows, each once, in order (property)", () => {
    const packages = [pkg(2), pkg(4), pkg(8)];
    const all = [gen(1), gen(3), gen(5), gen(7), gen(9), gen(11)];
    const gone = gen(0);
    const damage = fc.oneof(
      fc.record({ kind: fc.constant('garbage' as const), at: fc.nat() }),
      fc.record({ kind: fc.constant('duplicate' as const), at: fc.nat() }),
      fc.record({ kind: fc.constant('delete' as const), at: fc.nat() }),
      fc.record({ kind: fc.constant('swap' as const), at: fc.nat() }),
      fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
      fc.record({ kind: fc.constant('foreign' as const), at: fc.nat() }),
    );
    fc.assert(
      fc.property(
        fc.nat({ max: all.length }),
        fc.nat({ max: 3 }),
        fc.array(damage, { maxLength: 6 }),
        (copied, packaged, damages) => {
          const of = history(all, packages);
          // An undamaged copy: the gone run's row, then history's rows so far, package rows as they came.
          const written = [gone, ...all.slice(0, copied), ...packages.slice(0, packaged)];
          const known = knownOf(written);
          let lines = written.map(ledgerLine);
          for (const { kind, at } of damages) {
            const index = lines.length === 0 ? 0 : at % lines.length;
            if (kind === 'garbage') lines.splice(index, 0, '{"torn');
            else if (kind === 'duplicate' && lines.length > 0) lines.splice(index, 0, lines[index] as string);
            else if (kind === 'delete') lines.splice(index, 1);
            else if (kind === 'swap' && index + 1 < lines.length)
              [lines[index], lines[index + 1]] = [lines[index + 1] as string, lines[index] as string];
            else if (kind === 'truncate') lines = lines.slice(0, index);
            else if (kind === 'foreign') lines.splice(index, 0, ledgerLine(gen(100 + at)));
          }
          const result = checkCopy(ledgerFileLines(lines.map((line) => `${line}\n`).join('')), of, known);
          const kept = result.ledger.filter((row) => ledgerLine(row) !== ledgerLine(gone));
          // Every history row once, each source in history's order.
          expect(kept.filter((row) => row.type !== 'package')).toEqual(all);
          expect(kept.filter((row) => row.type === 'package')).toEqual(packages);
          // The gone run's row stays while any copy of it is left, once.
          const goneLeft = lines.includes(ledgerLine(gone));
          expect(result.ledger.length - kept.length).toBe(goneLeft ? 1 : 0);
          // Checking the repaired copy again finds it whole and adds nothing more.
          const again = check(text(result.ledger), of, knownOf(result.ledger));
          expect(again).toMatchObject({ whole: true, tail: [], removed: [] });
        },
      ),
    );
  });
});
