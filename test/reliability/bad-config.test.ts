import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { LoopView } from '../../src/workflows/loop-view.js';
import { loopWorkflowId } from '../../src/workflows/ids.js';
import { stopSignal } from '../../src/workflows/messages.js';
import { rowsOf, stateOf } from '../helpers/loop-checks.js';
import { createLoopHarness, type LoopHarness } from '../helpers/loop-harness.js';

// Config that goes bad while a loop runs. (Bad loop.yaml and candidates.yaml files at start, unsafe
// and duplicate names, unknown keys and wrong types are refused before anything runs: test/config,
// test/client/cli.test.ts and test/workflows/candidates-file.test.ts.)

describe('configuration going bad under a running loop', () => {
  let harness: LoopHarness;

  beforeAll(async () => {
    harness = await createLoopHarness({ candidates: [{ name: 'a' }] });
  });

  afterAll(async () => {
    await harness?.dispose();
  });

  it("a candidates file turning invalid (duplicate names, empty) keeps the list; a base config deleted or spoilt fails that candidate's runs with the reason; the loop goes on throughout", async () => {
    const dir = harness.dir;
    const candidates = path.join(dir, 'changing.candidates.yaml');
    const baseB = path.join(dir, 'configs', 'b.yaml');
    const good = stringify({
      candidates: [
        { name: 'a', base_config: 'configs/base.yaml', overrides: { fixture_quality: 0.3 } },
        { name: 'b', base_config: 'configs/b.yaml' },
      ],
    });
    await writeFile(baseB, stringify({ fixture_epochs: 2, fixture_quality: 0.7 }));
    await writeFile(candidates, good);
    await harness.startWith('changing', { candidates, saturation_evals: 1000 });
    const loopId = 'changing';
    const next = (view: LoopView, more = 2) =>
      harness.waitFor(loopId, (later) => later.round >= view.round + more, 60_000);
    let faults = 0;

    // Duplicate names, then an empty file: refused with the file and the field; the rounds go on with a and b.
    let view = await harness.waitFor(loopId, (v) => v.round >= 2);
    for (const [text, says] of [
      [`${good}  - {name: a, base_config: configs/base.yaml}\n`, 'duplicate candidate name "a"'],
      ['', 'a mapping with a "candidates" list'],
    ] as const) {
      await writeFile(candidates, text);
      view = await harness.waitFor(loopId, (v) => v.candidates_error?.includes(says) === true);
      expect(view.candidates_error).toContain(candidates);
      expect(view.candidates).toEqual(['a', 'b']);
      view = await next(view);
      faults += 1;
    }
    await writeFile(candidates, good);
    view = await harness.waitFor(loopId, (v) => v.candidates_error === null);

    // b's base config deleted: the re-read names it, and b's runs fail with the reason until it is back.
    await rm(baseB);
    view = await harness.waitFor(loopId, (v) => v.candidates_error?.includes('candidates.1.base_config') === true);
    expect(view.candidates_error).toContain(`an existing base config file for candidate "b"`);
    view = await next(view);
    faults += 1;
    // b's base config becomes a YAML list, not a mapping.
    await writeFile(baseB, '- not\n- a mapping\n');
    view = await harness.waitFor(loopId, (v) => v.candidates_error === null);
    view = await next(view);
    faults += 1;
    await writeFile(baseB, stringify({ fixture_epochs: 2, fixture_quality: 0.7 }));
    view = await next(view, 3);

    await harness.client.workflow.getHandle(loopWorkflowId(loopId)).signal(stopSignal);
    const result = await harness.result(loopId);
    const { rows, state } = await harness.ledger(loopId);
    expect(stateOf(state)).toEqual(stateOf(result.view));
    const runs = rowsOf(rows, 'run').filter((run) => run.status !== 'ensemble');
    const runIds = runs.map((run) => run.run_id);
    expect(new Set(runIds).size).toBe(runIds.length);
    // Every round ran a; every round ran b too (a failed run is a run), none silently missing.
    const rounds = [...new Set(runs.map((run) => run.round))].sort((x, y) => x - y);
    for (const round of rounds.filter((r) => r < result.view.round)) {
      expect(
        runs
          .filter((run) => run.round === round)
          .map((run) => run.candidate)
          .sort(),
        `round ${round}`,
      ).toEqual(['a', 'b']);
    }
    const failedB = runs.filter((run) => run.candidate === 'b' && run.status === 'train_failed');
    expect(failedB.length).toBeGreaterThanOrEqual(2);
    expect(
      failedB.some((run) =>
        run.error?.includes(`base config of candidate "b" cannot be read: ${baseB} does not exist`),
      ),
    ).toBe(true);
    expect(
      failedB.some((run) => run.error?.includes(`base config of candidate "b" must be a YAML mapping: ${baseB}`)),
    ).toBe(true);
    // From the deletion on b failed, until its base config was back; then it trained again.
    const ofB = runs.filter((run) => run.candidate === 'b').sort((x, y) => x.round - y.round);
    const firstFailed = ofB.findIndex((run) => run.status === 'train_failed');
    expect(firstFailed).toBeGreaterThanOrEqual(1);
    expect(ofB[firstFailed]?.error).toContain('cannot be read');
    const lastFailed = ofB.map((run) => run.status).lastIndexOf('train_failed');
    expect(ofB.slice(firstFailed, lastFailed + 1).every((run) => run.status === 'train_failed')).toBe(true);
    expect(ofB.slice(lastFailed + 1).length).toBeGreaterThanOrEqual(1);
    expect(ofB.slice(lastFailed + 1).every((run) => run.status === 'trained')).toBe(true);
    expect(runs.filter((run) => run.candidate === 'a').every((run) => run.status === 'trained')).toBe(true);
    console.log(`config going bad: ${faults} faults injected, ${runs.length} run rows checked`);
  });
});
