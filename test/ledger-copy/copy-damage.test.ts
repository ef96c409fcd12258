import { readFile, rm, stat, truncate, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  copyRepairs,
  ledgerCopyPath,
  readCopyText,
  readLedgerCopy,
  stateCopyPath,
} from '../../src/ledger-copy/copy-files.js';
import { ledgerLine } from '../../src/ledger/ledger-lines.js';
import type { LedgerRow, RunRow } from '../../src/ledger/rows.js';
import type { EvalRow } from '../../src/rules/types.js';
import { loopWorkflowId } from '../../src/workflows/ids.js';
import { stopNowSignal } from '../../src/workflows/messages.js';
import { seededRandom } from '../../bench/lib/durations.js';
import { copyCaughtUp } from '../helpers/bounded-loop.js';
import { copyIsTheExport, damageAtRandom } from '../helpers/copy-faults.js';
import { createLoopHarness, type LoopHarness } from '../helpers/loop-harness.js';

// Issue 24: the copy is checked against history, not trusted. A copy cut short, deleted, with a
// line that is no row, a duplicated line, a gap, a row of no run of the loop or two rows swapped
// is repaired from history, with a record of what was wrong; a deleted state dir is made again.

describe('a ledger copy damaged under a running loop', () => {
  let harness: LoopHarness;

  beforeAll(async () => {
    harness = await createLoopHarness({
      candidates: [{ name: 'a', overrides: { fixture_sleep_ms: 200 } }, { name: 'b' }],
      lanes: 1,
    });
  });

  afterAll(async () => {
    await harness?.dispose();
  });

  const lines = (rows: readonly LedgerRow[]) => rows.map(ledgerLine);

  async function stop(loopId: string): Promise<void> {
    await harness.client.workflow.getHandle(loopWorkflowId(loopId)).signal(stopNowSignal);
    await harness.result(loopId);
  }

  it('cut short to 3 rows, then deleted: each time the copy is rebuilt from history, every row once, in order, and the repair recorded', async () => {
    const config = harness.configFor('damaged');
    await harness.startWith('damaged');
    await harness.waitFor('damaged', (view) => view.round >= 2);
    const file = ledgerCopyPath(config.state_dir);
    // Stopped first, so the rows history holds stay put while the copy is compared with them. The
    // copy is waited for once history stops growing: the keeper writes it every 2 s, behind history.
    await stop('damaged');
    expect((await copyCaughtUp(harness, 'damaged', config.state_dir)).length).toBeGreaterThan(6);

    const text = (await readFile(file, 'utf8')).split('\n');
    await truncate(file, Buffer.byteLength(text.slice(0, 3).join('\n') + '\n'));
    await harness.startWith('damaged');
    await copyIsTheExport(harness, 'damaged', config.state_dir);
    await vi.waitFor(async () => expect((await copyRepairs(config.state_dir)).last?.found).toMatch(/^was cut short/), {
      timeout: 30_000,
      interval: 250,
    });

    // Deleted under the running loop: wherever it falls, between two keeper passes or between a
    // pass's check and its append (which makes a new file), the repair says it was deleted.
    await rm(file);
    await copyIsTheExport(harness, 'damaged', config.state_dir);
    await vi.waitFor(async () => expect((await copyRepairs(config.state_dir)).last?.found).toMatch(/^was deleted/), {
      timeout: 30_000,
      interval: 250,
    });

    await stop('damaged');
    await copyIsTheExport(harness, 'damaged', config.state_dir);
  });

  it('a line that is no row, a duplicate, a gap, a row of no run of the loop and two rows swapped: repaired in place, the lines left out kept in the repairs log', async () => {
    const config = harness.configFor('scrambled');
    await harness.startWith('scrambled');
    const file = ledgerCopyPath(config.state_dir);
    const copy = await vi.waitFor(
      async () => {
        const held = (await readCopyText(config.state_dir)).split('\n').filter((line) => line !== '');
        expect(held.length).toBeGreaterThan(8);
        return held;
      },
      { timeout: 60_000, interval: 250 },
    );
    const stranger = JSON.stringify({ ...(JSON.parse(copy[1] as string) as object), run_id: 'not-a-run-of-this-loop' });
    const damaged = [
      copy[0],
      '{"type":"run","generation":1,"sta', // torn by a crash long ago, then written after
      copy[2],
      copy[1], // swapped with copy[2]
      copy[3],
      copy[3], // duplicated
      // copy[4] deleted: a gap
      ...copy.slice(5, 7),
      stranger,
      ...copy.slice(7),
    ] as string[];
    // Written in place under the running loop (the keeper may append meanwhile: what it appended is damage too).
    await writeFile(file, damaged.map((line) => `${line}\n`).join(''));

    // The export is history's ledger in the copy's one order even before the keeper has repaired the copy.
    const rows = await copyIsTheExport(harness, 'scrambled', config.state_dir);
    expect(lines(rows)).toEqual(expect.arrayContaining([copy[4]]));
    expect(lines(rows)).not.toContain(stranger);
    const { last } = await copyRepairs(config.state_dir);
    expect(last?.removed.map((line) => [line.kind, line.text])).toEqual(
      expect.arrayContaining([
        ['not_a_row', damaged[1]],
        ['duplicate', copy[3]],
        ['foreign', stranger],
      ]),
    );
    expect(last?.found).toMatch(/line 2 is not a ledger row/);
    expect(last?.restored).toBeGreaterThanOrEqual(1);
    expect(last?.reordered).toBeGreaterThanOrEqual(1);

    await stop('scrambled');
    const final = await copyIsTheExport(harness, 'scrambled', config.state_dir);
    // Every row history holds, once.
    expect((await copyCaughtUp(harness, 'scrambled', config.state_dir)).length).toBe(final.length);
  });

  it('the state dir deleted (rm -rf) under a running loop: made again with its owner file, state.json and copy; the split is built again and the loop trains on', async () => {
    const config = harness.configFor('emptied');
    await harness.startWith('emptied');
    await harness.waitFor('emptied', (view) => view.round >= 2);
    const deleted = new Date().toISOString();
    // The loop writes into it meanwhile (a run's owner marker): a folder refilled while rm empties it is retried, as ENOTEMPTY.
    await rm(config.state_dir, { recursive: true, force: true, maxRetries: 10 });

    await vi.waitFor(
      async () => {
        await stat(path.join(config.state_dir, '.loop-owner'));
        await stat(stateCopyPath(config.state_dir));
      },
      { timeout: 30_000, interval: 250 },
    );
    expect(JSON.parse(await readFile(path.join(config.state_dir, '.loop-owner'), 'utf8'))).toMatchObject({
      loop_id: 'emptied',
    });
    // Runs started after the deletion train: their job configs name the split, built again from its seed.
    await vi.waitFor(
      async () => {
        const trainedSince = (await readLedgerCopy(config.state_dir)).filter(
          (row): row is RunRow => row.type === 'run' && row.status === 'trained' && row.started > deleted,
        );
        expect(trainedSince.length).toBeGreaterThanOrEqual(2);
      },
      { timeout: 60_000, interval: 500 },
    );
    await stat(path.join(config.state_dir, 'splits', 'gen-001.yaml'));
    // Round ensembles (from round 3) keep members of rounds whose job configs went with the folder.
    await harness.waitFor('emptied', (view) => view.round >= 5, 120_000);
    await stop('emptied');
    const rows = await copyIsTheExport(harness, 'emptied', config.state_dir);
    expect((await copyCaughtUp(harness, 'emptied', config.state_dir)).length).toBe(rows.length);
    // Issue 48, item 8: such a member is left out of the ensemble and named on its run row, never
    // a failed evaluation ("config not found").
    const failed = rows.filter((row): row is EvalRow => row.type === 'eval' && row.status !== 'ok');
    expect(failed.map((row) => `${row.run_id}/${row.checkpoint_name}`)).toEqual([]);
    const ensembles = rows.filter(
      (row): row is RunRow => row.type === 'run' && row.status === 'ensemble' && row.started > deleted,
    );
    const leftOut = ensembles.flatMap((row) => row.members_left_out ?? []);
    expect(leftOut.length).toBeGreaterThan(0);
    for (const member of leftOut) {
      expect(member.why).toBe(`job config ${member.config} is gone (was the state dir emptied?)`);
      // Of a round trained before the folder went; never also a member of the same row.
      expect(member.config).toMatch(/round-000[12]\//);
    }
    for (const row of ensembles) {
      const members = (row.members ?? []) as { config: string }[];
      expect(
        members.filter((member) => (row.members_left_out ?? []).some((gone) => gone.config === member.config)),
      ).toEqual([]);
    }
  });

  it('six faults at random (seeded) while the loop runs: the copy ends as the export, every row once', async () => {
    const config = harness.configFor('drilled');
    await harness.startWith('drilled');
    await harness.waitFor('drilled', (view) => view.round >= 1);
    const seed = 24_2026;
    const faults = await damageAtRandom(config.state_dir, seededRandom(seed), 6);
    console.log(`copy fault drill (seed ${seed}): ${faults.length} faults injected: ${faults.join(', ')}`);
    await stop('drilled');
    const rows = await copyIsTheExport(harness, 'drilled', config.state_dir);
    expect((await copyCaughtUp(harness, 'drilled', config.state_dir)).length).toBe(rows.length);
  });
});
