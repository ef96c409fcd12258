import { appendFile, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  appendLedgerRows,
  copyRepairs,
  ledgerCopyPath,
  readLedgerCopy,
  recordCopyRepair,
  rewriteLedgerCopy,
} from '../../src/ledger-copy/copy-files.js';
import { holdCopyLock, releaseCopyLock } from '../../src/ledger-copy/copy-lock.js';
import type { LedgerRow } from '../../src/ledger/rows.js';
import { checkCopy } from '../../src/ledger-copy/copy-check.js';
import { ledgerFileLines } from '../../src/ledger/ledger-lines.js';
import { processStartTime, sameProcessAlive } from '../../src/support/process-alive.js';
import { mountTmpfs } from '../helpers/tmpfs.js';

const row = (generation: number): LedgerRow => ({
  type: 'generation',
  event: 'start',
  generation,
  reason: 'initial',
  split_seed: 7 + generation,
  previous_champion: null,
  previous_pareto_set: [],
  started: `2026-11-30T00:00:0${generation}.000Z`,
});

describe('the ledger copy on disk', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'ledger-copy-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('appends whole lines and reads them back', async () => {
    await appendLedgerRows(dir, [row(1), row(2)]);
    await appendLedgerRows(dir, [row(3)]);
    expect(await readLedgerCopy(dir)).toEqual([row(1), row(2), row(3)]);
    expect((await readFile(ledgerCopyPath(dir), 'utf8')).split('\n')).toHaveLength(4);
  });

  it('leaves out a row a crash tore mid-write, and a repair (the whole copy rewritten) replaces the file at once', async () => {
    await appendLedgerRows(dir, [row(1), row(2)]);
    await appendFile(ledgerCopyPath(dir), JSON.stringify(row(3)).slice(0, 25));
    expect(await readLedgerCopy(dir)).toEqual([row(1), row(2)]);
    // A reader leaves the file alone; the keeper rewrites it whole (copy-check.ts decides when).
    expect(await readFile(ledgerCopyPath(dir), 'utf8')).toContain(JSON.stringify(row(3)).slice(0, 25));
    await rewriteLedgerCopy(dir, [row(1), row(2)]);
    await appendLedgerRows(dir, [row(3)]);
    expect(await readFile(ledgerCopyPath(dir), 'utf8')).toBe(
      [row(1), row(2), row(3)].map((r) => `${JSON.stringify(r)}\n`).join(''),
    );
    expect((await readdir(dir)).filter((name) => name.includes('repair'))).toEqual([]);
  });

  it('ends the line of a whole last row left without its newline before appending after it', async () => {
    await writeFile(ledgerCopyPath(dir), JSON.stringify(row(1)));
    expect(await readLedgerCopy(dir)).toEqual([row(1)]);
    await appendLedgerRows(dir, [row(2)], { newlineFirst: true });
    expect(await readLedgerCopy(dir)).toEqual([row(1), row(2)]);
  });

  it('records repairs one line each, and says how many and which was last', async () => {
    expect(await copyRepairs(dir)).toEqual({ count: 0, last: null });
    const repair = (found: string) => ({
      time: '2026-12-02T00:00:00.000Z',
      loop_id: 'l',
      ledger: ledgerCopyPath(dir),
      found,
      removed: [{ kind: 'not_a_row', line: 2, text: 'not json' }],
      restored: 0,
      reordered: 0,
      appended: 0,
      rows: 2,
    });
    await recordCopyRepair(dir, repair('first'));
    await recordCopyRepair(dir, repair('second'));
    expect(await copyRepairs(dir)).toEqual({ count: 2, last: repair('second') });
  });

  it('refuses a broken row in the middle of the file, naming its line', async () => {
    await writeFile(ledgerCopyPath(dir), `${JSON.stringify(row(1))}\nnot json\n${JSON.stringify(row(2))}\n`);
    await expect(readLedgerCopy(dir)).rejects.toThrow(/ledger\.jsonl:2: not a ledger row/);
  });

  it('a full disk (a real 64 KiB tmpfs): a failed append leaves the copy as it was, whole rows only; the next append once there is room goes on after them (issue 24)', async () => {
    const disk = await mountTmpfs(path.join(dir, 'small'), { sizeKiB: 64 });
    try {
      const stateDir = path.join(disk.dir, 'state');
      await appendLedgerRows(stateDir, [row(1), row(2)]);
      const before = await readFile(ledgerCopyPath(stateDir), 'utf8');
      // Fill the disk to a few hundred bytes short of full, then append more than fits.
      const room = Number((await execa('df', ['--output=avail', '-B1', disk.dir])).stdout.split('\n')[1]);
      await writeFile(path.join(disk.dir, 'filler'), Buffer.alloc(Math.max(0, room - 300)));
      const many = Array.from({ length: 40 }, (_, i) => row(3 + i));
      const failed = await appendLedgerRows(stateDir, many).then(
        () => null,
        (error: Error) => error,
      );
      expect(failed?.message).toContain('rows not appended (no space left on its device); the copy is left as it was');
      expect(await readFile(ledgerCopyPath(stateDir), 'utf8')).toBe(before);
      // Room again: the rows go on right after the whole ones.
      await rm(path.join(disk.dir, 'filler'));
      await appendLedgerRows(stateDir, many);
      expect(await readLedgerCopy(stateDir)).toEqual([row(1), row(2), ...many]);
      // A repair the disk cannot take leaves the copy as it was, and no temporary file.
      const whole = await readFile(ledgerCopyPath(stateDir), 'utf8');
      const left = Number((await execa('df', ['--output=avail', '-B1', disk.dir])).stdout.split('\n')[1]);
      await writeFile(path.join(disk.dir, 'filler'), Buffer.alloc(Math.max(0, left - 300)));
      const refused = await rewriteLedgerCopy(stateDir, [...many, ...many]).then(
        () => null,
        (error: Error) => error,
      );
      expect(refused?.message).toContain('not repaired (no space left on its device); the copy is left as it was');
      expect(await readFile(ledgerCopyPath(stateDir), 'utf8')).toBe(whole);
      expect((await readdir(stateDir)).sort()).toEqual(['ledger.jsonl']);
    } finally {
      await disk.unmount();
    }
  });

  it('a writer killed with SIGKILL mid-append leaves whole rows and at most a torn last line, which the check leaves out', async () => {
    const appender = fileURLToPath(new URL('./fixtures/appender.ts', import.meta.url));
    for (let kill = 0; kill < 3; kill += 1) {
      const stateDir = path.join(dir, `killed-${kill}`);
      // One process (tsx's own command would run the writer in a child of its own, out of reach of the kill).
      const child = execa(process.execPath, ['--import', 'tsx', appender, stateDir], { reject: false });
      await new Promise<void>((resolve) => child.stdout?.once('data', () => resolve()));
      await new Promise((resolve) => setTimeout(resolve, 50 + kill * 120));
      child.kill('SIGKILL');
      expect((await child).signal).toBe('SIGKILL');
      const lines = ledgerFileLines(await readFile(ledgerCopyPath(stateDir), 'utf8'));
      const rows = lines.filter((line) => line.row !== null);
      // Whole rows, numbered from 0 without a gap; no line that is no row but, perhaps, the last.
      expect(rows.map((line) => (line.row as { generation: number }).generation)).toEqual(
        rows.map((_, index) => index),
      );
      expect(lines.filter((line) => line.row === null && !line.last)).toEqual([]);
      const history = {
        generation: { rows: rows.map((line) => line.row as LedgerRow), abandoned: [] },
        packaging: { rows: [], abandoned: [] },
      };
      const check = checkCopy(lines, history);
      expect(check.removed.every((line) => line.kind === 'torn')).toBe(true);
      expect(check.ledger).toEqual(history.generation.rows);
    }
    // Three Node start-ups with tsx: seconds each on a busy box.
  }, 90_000);

  it('reads no rows where there is no copy yet', async () => {
    expect(await readLedgerCopy(path.join(dir, 'none'))).toEqual([]);
  });

  it('lets one live writer hold a state dir and takes over the lock of one that died', async () => {
    expect(await holdCopyLock(dir)).toBe(true);
    expect(await holdCopyLock(dir)).toBe(true);
    await releaseCopyLock(dir);
    // A holder on this host whose process is gone.
    await writeFile(path.join(dir, 'ledger.jsonl.lock'), `${(await import('node:os')).hostname()} 999999999`);
    expect(await holdCopyLock(dir)).toBe(true);
    // A live holder (this test's parent process) keeps it.
    await writeFile(path.join(dir, 'ledger.jsonl.lock'), `${(await import('node:os')).hostname()} ${process.ppid}`);
    expect(await holdCopyLock(dir)).toBe(false);
    // The same, named with its start time, as a writer names itself now.
    const parent = `${(await import('node:os')).hostname()} ${process.ppid} ${processStartTime(process.ppid)}`;
    await writeFile(path.join(dir, 'ledger.jsonl.lock'), parent);
    expect(await holdCopyLock(dir)).toBe(false);
  });

  it('takes over a lock whose process id the system has handed to another process since (pid_max is often 32768)', async () => {
    // A live process by that id, started at another time than the writer that took the lock.
    const holder = `${(await import('node:os')).hostname()} ${process.ppid} 1`;
    await writeFile(path.join(dir, 'ledger.jsonl.lock'), holder);
    expect(await holdCopyLock(dir)).toBe(true);
    // It names this process, with its start time: released by it alone.
    const mine = (await readFile(path.join(dir, 'ledger.jsonl.lock'), 'utf8')).split(' ');
    expect(mine.slice(1)).toEqual([String(process.pid), processStartTime(process.pid)]);
    await releaseCopyLock(dir);
    await expect(readFile(path.join(dir, 'ledger.jsonl.lock'))).rejects.toThrow('ENOENT');
  });

  it('tells a live process from one that took its id since, by its start time from /proc', () => {
    const started = processStartTime(process.pid);
    expect(started).toMatch(/^\d+$/);
    expect(sameProcessAlive(process.pid, started ?? '')).toBe(true);
    expect(sameProcessAlive(process.pid, String(Number(started) + 1))).toBe(false);
    // A lock from before start times (none given): the id alone.
    expect(sameProcessAlive(process.pid, undefined)).toBe(true);
    expect(sameProcessAlive(999_999_999, started ?? '')).toBe(false);
    expect(processStartTime(999_999_999)).toBeNull();
  });
});
