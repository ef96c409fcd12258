import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { readLedgerCopy } from '../../src/ledger-copy/copy-files.js';
import type { RunRow } from '../../src/ledger/rows.js';
import { relocationsPath } from '../../src/client/relocation.js';
import { copyIsTheExport } from '../helpers/copy-faults.js';
import { createLoopHarness, type LoopHarness } from '../helpers/loop-harness.js';
import { championLoopAt } from './champion-loop-cli.js';

// Issue 24: a stopped loop's state dir and runs root moved to where an edited loop.yaml says.
// Before, `start` refused a loop.yaml that moved them ("put them back or start over with
// --fresh") and there was no way to tell the loop where its folders went.

describe('champion-loop relocate', () => {
  let harness: LoopHarness;
  const cli = (args: readonly string[]) => championLoopAt(harness.server, args);

  beforeAll(async () => {
    harness = await createLoopHarness({
      candidates: [{ name: 'a', overrides: { fixture_sleep_ms: 100 } }, { name: 'b' }],
      lanes: 1,
    });
  });

  afterAll(async () => {
    await harness?.dispose();
  });

  async function loopYaml(name: string, folder: string): Promise<string> {
    const base = parse(await readFile(harness.configFile, 'utf8')) as Record<string, unknown>;
    const file = path.join(harness.dir, name);
    await writeFile(file, stringify({ ...base, state_dir: `${folder}/state`, runs_root: `${folder}/runs` }));
    return file;
  }

  it("moves a stopped loop's folders, records the move, and start resumes it there with its paths moved", async () => {
    const before = await loopYaml('loop-here.yaml', 'here');
    const after = await loopYaml('loop-there.yaml', 'there');
    const [here, there] = ['here', 'there'].map((folder) => path.join(harness.dir, folder));
    expect((await cli(['start', 'moving', '--config', before])).exitCode).toBe(0);
    await harness.waitFor('moving', (view) => view.round >= 2);
    // Relocating a running loop is refused.
    const running = await cli(['relocate', 'moving', '--config', after]);
    expect(running.exitCode).not.toBe(0);
    expect(running.stderr).toContain('is running: stop it first');
    expect((await cli(['stop', 'moving'])).exitCode).toBe(0);
    await harness.result('moving');

    const refused = await cli(['start', 'moving', '--config', after]);
    expect(refused.exitCode).not.toBe(0);
    expect(refused.stderr).toContain(`move the folders there with 'champion-loop relocate moving --config ${after}'`);

    const moved = await cli(['relocate', 'moving', '--config', after]);
    expect(moved.stderr).toBe('');
    expect(moved.stdout).toContain(`state_dir: moved ${here}/state to ${there}/state`);
    expect(moved.stdout).toContain(`runs_root: moved ${here}/runs to ${there}/runs`);
    expect(existsSync(here + '/state')).toBe(false);
    expect(JSON.parse((await readFile(relocationsPath(`${there}/state`), 'utf8')).trim())).toMatchObject({
      loop_id: 'moving',
      moves: [
        { field: 'state_dir', from: `${here}/state`, to: `${there}/state` },
        { field: 'runs_root', from: `${here}/runs`, to: `${there}/runs` },
      ],
    });

    const stoppedAt = new Date().toISOString();
    const resumed = await cli(['start', 'moving', '--config', after]);
    expect(resumed.stdout).toContain('resumed loop moving');
    expect(resumed.stdout).toContain(`relocated: state_dir ${here}/state -> ${there}/state`);
    const { round } = await harness.view('moving');
    await harness.waitFor('moving', (view) => view.round >= round + 2);
    expect((await cli(['stop', 'moving'])).exitCode).toBe(0);
    await harness.result('moving');

    // Runs after the move trained in the new folders, and nothing was written to the old ones.
    const rows = await copyIsTheExport(harness, 'moving', `${there}/state`);
    const newRuns = rows.filter(
      (row): row is RunRow => row.type === 'run' && row.seed !== null && row.started > stoppedAt,
    );
    expect(newRuns.length).toBeGreaterThanOrEqual(2);
    for (const run of newRuns) {
      expect(run.status).toBe('trained');
      expect(run.config_path.startsWith(`${there}/state/`)).toBe(true);
    }
    expect([existsSync(`${here}/state`), existsSync(`${here}/runs`)]).toEqual([false, false]);
    expect((await readLedgerCopy(`${there}/state`)).length).toBe(rows.length);
  });
});
