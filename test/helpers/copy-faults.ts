// Damage done to a running loop's ledger copy at random (issue 24's fault drill): each kind an
// operator, a crash or a bad restore can do to the state dir. Seeded, so that a drill repeats.
import { existsSync } from 'node:fs';
import { readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect, vi } from 'vitest';
import { exportLedger } from '../../src/client/ledger-export.js';
import { ledgerCopyPath, readLedgerCopy } from '../../src/ledger-copy/copy-files.js';
import { ledgerLine } from '../../src/ledger/ledger-lines.js';
import type { LedgerRow } from '../../src/ledger/rows.js';
import { ledgerRuleProblems } from './ledger-rules.js';
import type { LoopDriver } from './loop-harness.js';

const KINDS = ['truncate', 'garbage', 'duplicate', 'delete-line', 'swap', 'delete-file', 'delete-state-dir'] as const;
export type CopyFault = (typeof KINDS)[number];

/**
 * Do one kind of damage to the copy in `stateDir`; `draw` picks the kind (unless given) and where.
 * A state dir that is not there (an earlier fault deleted it, and the loop has not made it again
 * yet) holds no copy to edit: the editing kinds then do nothing and say so (`none`), as writing
 * there would fail, or make the folder without its owner file. A copy not written yet is edited
 * as an empty one (garbage makes a file of one torn line).
 */
async function damageCopy(stateDir: string, draw: () => number, kind?: CopyFault): Promise<CopyFault | 'none'> {
  const fault = kind ?? KINDS[Math.floor(draw() * KINDS.length)] ?? 'garbage';
  const file = ledgerCopyPath(stateDir);
  const text = await readFile(file, 'utf8').catch(() => '');
  const lines = text.split('\n').filter((line) => line !== '');
  const at = Math.floor(draw() * Math.max(1, lines.length));
  const editing = fault !== 'delete-file' && fault !== 'delete-state-dir';
  if (editing && !existsSync(stateDir)) return 'none';
  const write = (changed: string[]) => writeFile(file, changed.map((line) => `${line}\n`).join(''));
  switch (fault) {
    case 'truncate':
      if (lines.length > 0)
        await truncate(
          file,
          Buffer.byteLength(
            lines
              .slice(0, at)
              .map((l) => `${l}\n`)
              .join(''),
          ),
        );
      break;
    case 'garbage':
      await write([...lines.slice(0, at), `{"type":"eval","torn":${at}`, ...lines.slice(at)]);
      break;
    case 'duplicate':
      if (lines.length > 0) await write([...lines.slice(0, at + 1), lines[at] as string, ...lines.slice(at + 1)]);
      break;
    case 'delete-line':
      await write([...lines.slice(0, at), ...lines.slice(at + 1)]);
      break;
    case 'swap':
      if (at + 1 < lines.length)
        await write([...lines.slice(0, at), lines[at + 1] as string, lines[at] as string, ...lines.slice(at + 2)]);
      break;
    case 'delete-file':
      await rm(file, { force: true });
      break;
    case 'delete-state-dir':
      // Steps write into it meanwhile: a folder refilled while rm empties it (ENOTEMPTY) is tried again.
      await rm(stateDir, { recursive: true, force: true, maxRetries: 10 });
      break;
  }
  return fault;
}

/** `count` faults one after another, 0-3 s apart (some before the keeper repaired the one before). */
export async function damageAtRandom(
  stateDir: string,
  draw: () => number,
  count: number,
): Promise<(CopyFault | 'none')[]> {
  const done: (CopyFault | 'none')[] = [];
  for (let fault = 0; fault < count; fault += 1) {
    done.push(await damageCopy(stateDir, draw));
    await sleep(Math.floor(draw() * 3_000));
  }
  return done;
}

/**
 * Once the keeper has caught up: the copy is the export row for row, in its order, and the export
 * finds nothing wrong with it. Returns the copy's rows.
 */
export async function copyIsTheExport(
  driver: Pick<LoopDriver, 'client'>,
  loopId: string,
  stateDir: string,
): Promise<LedgerRow[]> {
  return vi.waitFor(
    async () => {
      const ledger = await exportLedger(driver.client, loopId);
      const copy = await readLedgerCopy(stateDir);
      expect(ledger.copyProblems).toBeNull();
      expect(copy.map(ledgerLine)).toEqual(ledger.rows.map(ledgerLine));
      // And it passes the seed's ledger rules (the order a reader of ledger.jsonl relies on).
      expect(ledgerRuleProblems(copy)).toEqual([]);
      return copy;
    },
    { timeout: 30_000, interval: 250 },
  );
}
