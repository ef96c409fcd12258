// The evaluation activity's per-item record (loop.yaml `champion_rule: paired`): read off a real
// scores file in a temporary state dir, plainly and after the row's reject band.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { itemsIdentity, withItemErrors } from '../../../src/activities/support/item-errors.js';
import type { LoopPaths } from '../../../src/activities/types.js';
import { evalScoresPath } from '../../../src/ledger/eval-row.js';
import { decodeBits } from '../../../src/rules/item-errors.js';
import type { EvalRow } from '../../../src/rules/types.js';

const SCORES = [
  { id: 'a', target: 0, margin: 0.5 },
  { id: 'b', target: 1, margin: -0.1 },
  { id: 'c', target: 0, margin: -2 },
  { id: 'd', target: 1, margin: -0.9 },
];

describe('withItemErrors', () => {
  let dir: string;
  let paths: LoopPaths;
  const row = { run_id: 'r1', checkpoint_name: 'checkpoint-0001.pt', role: 'test', status: 'ok' } as EvalRow;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'item-errors-'));
    paths = {
      workdir: dir,
      stateDir: join(dir, 'state'),
      runsRoot: join(dir, 'runs'),
      dataRoot: dir,
      scoreCacheDir: null,
    };
    const file = evalScoresPath(paths.stateDir, row.run_id, row.checkpoint_name, 'test');
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, SCORES.map((score) => JSON.stringify(score)).join('\n') + '\n');
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('records which items the checkpoint got wrong, plainly', async () => {
    const errors = (await withItemErrors(paths, row, 'result')).item_errors;
    expect(errors).toMatchObject({
      items: itemsIdentity(SCORES as never),
      block: 'result',
      fail_count: 2,
      pass_count: 2,
    });
    expect(decodeBits(errors!.f2p, 2)).toEqual([true, false]);
    expect(decodeBits(errors!.p2f, 2)).toEqual([true, true]);
  });

  it('records the errors after the row’s reject band, and none without a band', async () => {
    const banded = { ...row, reject_band: { low: -0.5, high: 0.6, chosen_on: 'validation' } } as EvalRow;
    const errors = (await withItemErrors(paths, banded, 'decided')).item_errors;
    expect(errors?.block).toBe('decided');
    expect(decodeBits(errors!.f2p, 2)).toEqual([false, false]);
    expect(decodeBits(errors!.p2f, 2)).toEqual([false, true]);
    expect(await withItemErrors(paths, { ...row, reject_band: null }, 'decided')).not.toHaveProperty('item_errors');
  });

  it('leaves a row without a scores file, or a failed row, as it was', async () => {
    const other = { ...row, run_id: 'r2' };
    expect(await withItemErrors(paths, other, 'result')).toEqual(other);
    const failed = { ...row, status: 'failed' as const };
    expect(await withItemErrors(paths, failed, 'result')).toBe(failed);
  });

  it('identifies the items by id and target, in order', () => {
    const rows = SCORES as never as Parameters<typeof itemsIdentity>[0];
    expect(itemsIdentity(rows)).toMatch(/^[0-9a-f]{16}$/);
    expect(itemsIdentity([...rows].reverse())).not.toBe(itemsIdentity(rows));
    expect(itemsIdentity(rows.map(({ margin, target }) => ({ margin, target })))).not.toBe(itemsIdentity(rows));
  });
});
