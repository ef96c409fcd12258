import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { LedgerRow } from '../../../src/ledger/rows.js';

/** test/fixtures/ledger/seed-ledger.jsonl: two generations, a failed and a stale reserve check. */
export const SEED_LEDGER = fileURLToPath(new URL('../../fixtures/ledger/seed-ledger.jsonl', import.meta.url));

/** The fixture ledger's rows. */
export function seedLedgerRows(): LedgerRow[] {
  return readFileSync(SEED_LEDGER, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as LedgerRow);
}
