import { describe, expect, it } from 'vitest';
import type { LedgerRow } from '../../src/ledger/rows.js';
import { seedLedgerRows } from '../client/report/seed-ledger.js';
import { ledgerRuleProblems } from '../helpers/ledger-rules.js';

// The rules the copy tests hold every copy and export to: they must pass a seed's own ledger and
// catch the damage issue 24 found (rows scrambled by a copy with a gap, rows twice).
describe("the seed's ledger rules (a test helper)", () => {
  const seed = seedLedgerRows();

  it("pass the seed's own ledger", () => {
    expect(seed.length).toBeGreaterThan(10);
    expect(ledgerRuleProblems(seed)).toEqual([]);
  });

  it('catch a row twice, a champion moved away from its eval row, and rows before their generation opens', () => {
    const champion = seed.findIndex((row) => row.type === 'champion');
    expect(champion).toBeGreaterThan(0);
    const moved = [...seed.slice(0, champion), ...seed.slice(champion + 1), seed[champion] as LedgerRow];
    expect(ledgerRuleProblems(moved).join('\n')).toContain('not right after the eval row that caused it');
    expect(ledgerRuleProblems([...seed, seed[1] as LedgerRow]).join('\n')).toContain('a duplicate of an earlier row');
    const run = seed.findIndex((row) => row.type === 'run');
    const early = [seed[run] as LedgerRow, ...seed.filter((_, index) => index !== run)];
    expect(ledgerRuleProblems(early).join('\n')).toContain('which no earlier generation row opens');
  });
});
