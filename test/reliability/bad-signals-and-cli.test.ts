import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { LOOP_ID_MAX } from '../../src/client/loop-id.js';
import { loopWorkflowId, packagingWorkflowId } from '../../src/workflows/ids.js';
import {
  advanceSignal,
  championSignal,
  packagingQuery,
  reserveReportedSignal,
  runReportedSignal,
  stopSignal,
  teacherReportedSignal,
} from '../../src/workflows/messages.js';
import { championLoopCli, rowsOf, stateOf, temporalCli } from '../helpers/loop-checks.js';
import { createLoopHarness, type LoopHarness } from '../helpers/loop-harness.js';
import { STACK_FRAME } from '../helpers/files-and-errors.js';

const BIN = fileURLToPath(new URL('../../bin/champion-loop.js', import.meta.url));

// Signals with wrong arguments (as the temporal CLI or the Web UI lets anyone send them) and
// champion-loop calls with wrong arguments: each is refused or read safely, and the running loop
// goes on with nothing lost.

describe('signals and CLI calls with wrong arguments', () => {
  let harness: LoopHarness;

  beforeAll(async () => {
    harness = await createLoopHarness({
      candidates: [{ name: 'a' }, { name: 'b', overrides: { fixture_quality: 0.7 } }],
    });
  });

  afterAll(async () => {
    await harness?.dispose();
  });

  /** `temporal workflow signal` as an operator types it; the CLI itself accepts all of these. */
  async function signal(workflowId: string, name: string, input?: string): Promise<void> {
    const result = await temporalCli(harness.server, [
      'workflow',
      'signal',
      '--workflow-id',
      workflowId,
      '--name',
      name,
      ...(input === undefined ? [] : ['--input', input]),
    ]);
    expect(result.exitCode, `${name} ${input ?? ''}: ${String(result.stderr)}`).toBe(0);
  }

  it('malformed signals do not wedge or corrupt a running loop: reports without a shape are ignored, an advance without a text reason advances as "requested"', async () => {
    await harness.startWith('signals', { saturation_evals: 1000 });
    const before = await harness.waitFor('signals', (view) => view.test_evals >= 2);
    const malformed: [string, string | undefined][] = [
      [runReportedSignal.name, 'null'],
      [runReportedSignal.name, '{}'],
      [runReportedSignal.name, '{"childId": 5, "evals": "all"}'],
      [runReportedSignal.name, '"text"'],
      [reserveReportedSignal.name, 'null'],
      [reserveReportedSignal.name, '{"childId": "champion-loop/signals/g001/r0001/a"}'],
      [teacherReportedSignal.name, '[]'],
      ['noSuchSignal', '{"x": 1}'],
    ];
    for (const [name, input] of malformed) await signal(loopWorkflowId('signals'), name, input);
    // The loop's packaging workflow takes champions by signal too.
    const packagingSignals = ['null', '{"run_id": "x"}'];
    for (const input of packagingSignals) await signal(packagingWorkflowId('signals'), championSignal.name, input);
    // The loop still runs its rounds: its workflow tasks did not fail on any of them.
    const after = await harness.waitFor('signals', (view) => view.round >= before.round + 2, 60_000);
    expect(after.generation).toBe(1);

    // An advance whose reason is not a text (no input at all, a number): the loop advances, recorded as requested.
    await signal(loopWorkflowId('signals'), advanceSignal.name);
    await harness.waitFor('signals', (view) => view.generation === 2 && view.test_evals >= 1, 60_000);
    await signal(loopWorkflowId('signals'), advanceSignal.name, '42');
    await harness.waitFor('signals', (view) => view.generation === 3 && view.test_evals >= 1, 60_000);

    await harness.client.workflow.getHandle(loopWorkflowId('signals')).signal(stopSignal);
    const result = await harness.result('signals');
    const { rows, state } = await harness.ledger('signals');
    expect(stateOf(state)).toEqual(stateOf(result.view));
    expect(rowsOf(rows, 'generation').map((row) => [row.generation, row.reason])).toEqual([
      [1, 'initial'],
      [2, 'requested'],
      [3, 'requested'],
    ]);
    const runIds = rowsOf(rows, 'run').map((row) => row.run_id);
    expect(new Set(runIds).size).toBe(runIds.length);
    // Packaging went on: the champions of generations 2 and 3 were packaged or replaced, none lost to the bad signals.
    await expect
      .poll(
        async () => {
          const view = await harness.client.workflow.getHandle(packagingWorkflowId('signals')).query(packagingQuery);
          return { running: view.running, queued: view.queued };
        },
        { timeout: 60_000, interval: 250, message: 'packaging did not settle' },
      )
      .toEqual({ running: null, queued: null });
    const packageRows = rowsOf((await harness.ledger('signals')).rows, 'package');
    expect(packageRows.some((row) => row.event === 'finished' && row.generation === 3 && row.exit_code === 0)).toBe(
      true,
    );
    expect(packageRows.every((row) => typeof row.run_id === 'string' && row.run_id.startsWith('champ-'))).toBe(true);
    console.log(
      `malformed signals: ${malformed.length + packagingSignals.length + 2} faults injected, ${rows.length} ledger rows checked`,
    );
  });

  it('champion-loop calls with wrong arguments say what is wrong and change nothing', async () => {
    const dir = path.join(harness.dir, 'cli-args');
    const loopYaml = path.join(harness.dir, 'loop.yaml');
    // A state dir under a file (issue 23: the raw errno, without the loop.yaml key, after the loop had started).
    const notes = path.join(harness.dir, 'notes.txt');
    await writeFile(notes, 'a file, not a folder\n');
    const underFile = path.join(harness.dir, 'loop-under-file.yaml');
    await writeFile(
      underFile,
      (await readFile(loopYaml, 'utf8')) + `state_dir: ${JSON.stringify(path.join(notes, 'state'))}\n`,
    );
    const calls: { args: string[]; says: string[]; offline?: boolean }[] = [
      { args: ['start', 'x'], says: ["required option '-c, --config <loop.yaml>' not specified"] },
      {
        args: ['start', 'bad/id', '--config', loopYaml],
        says: ["loop id 'bad/id' must be letters, digits, '_', '-', '.'"],
      },
      { args: ['start', 'x', '--config', path.join(dir, 'missing.yaml')], says: [path.join(dir, 'missing.yaml')] },
      {
        // 975 characters: Temporal refused the generation's first child id, and the loop was wedged.
        args: ['start', 'M'.repeat(975), '--config', loopYaml],
        says: [`is 975 characters, at most ${LOOP_ID_MAX} fit`, 'Choose a shorter loop id; nothing was started'],
      },
      {
        args: ['start', 'x', '--config', underFile],
        says: [
          `state_dir (in ${underFile}) ${path.join(notes, 'state')}: cannot create this folder: ${notes} is a file, not a folder`,
        ],
      },
      { args: ['advance', 'signals'], says: ["required option '--reason <text>' not specified"] },
      { args: ['advance', 'signals', '--reason', '  '], says: ['advance needs a reason (--reason)'] },
      { args: ['advance', 'nope', '--reason', 'x'], says: ["no loop 'nope' here"] },
      { args: ['stop', 'nope'], says: ["no loop 'nope' here"] },
      { args: ['worker', 'bogus'], says: ["unknown worker kind 'bogus': use orchestrator, gpu or package"] },
      { args: ['worker', 'gpu', '--cpu'], says: ['--device must be a number >= 0 (got nothing)'] },
      { args: ['worker', 'gpu', '--device', '0', '--slots', '0'], says: ['--slots must be a number >= 1 (got 0)'] },
      {
        args: ['state', '--from-ledger', path.join(dir, 'missing.jsonl')],
        says: [path.join(dir, 'missing.jsonl')],
        offline: true,
      },
      {
        args: ['state', '--from-ledger', loopYaml, '--saturation-evals', '0'],
        says: ['--saturation-evals must be a whole number >= 1 (got 0)'],
        offline: true,
      },
      { args: ['frobnicate'], says: ["unknown command 'frobnicate'"] },
    ];
    // Side by side: each is a process of its own, and none changes anything.
    const results = await Promise.all(
      calls.map((call) =>
        // `state` reads a file and takes no connection flags.
        call.offline
          ? execa(process.execPath, [BIN, ...call.args], { reject: false })
          : championLoopCli(harness.server, call.args),
      ),
    );
    calls.forEach((call, index) => {
      const result = results[index];
      const what = `champion-loop ${call.args.join(' ')}`;
      expect(result?.exitCode, what).not.toBe(0);
      const said = `${String(result?.stdout)}${String(result?.stderr)}`;
      for (const text of call.says) expect(said, what).toContain(text);
      // One error, not a stack trace.
      expect(said, what).not.toMatch(STACK_FRAME);
    });
    // Nothing was started by any of them.
    const listed = await temporalCli(harness.server, [
      'workflow',
      'list',
      '--query',
      `WorkflowId = "champion-loop/x" OR WorkflowId = "champion-loop/bad/id"`,
      '--output',
      'json',
    ]);
    expect(JSON.parse(String(listed.stdout) || '[]')).toEqual([]);
    console.log(`CLI calls with wrong arguments: ${calls.length} faults injected, ${calls.length} errors checked`);
  });
});
