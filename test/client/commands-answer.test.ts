import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loopWorkflowId } from '../../src/workflows/ids.js';
import { championLoopCli, rowsOf, temporalCli } from '../helpers/loop-checks.js';
import { createLoopHarness, type LoopHarness } from '../helpers/loop-harness.js';

// `stop`, `stop --now` and `advance` are workflow updates: the workflow's validators refuse with a
// reason (and nothing changes), an accepted one answers with the loop's view.
describe('commands that answer: stop and advance as updates', () => {
  let harness: LoopHarness;
  let dir: string;
  /** Training runs finish only once this file exists: the loop has work running while the commands arrive, however slow the box. */
  let release: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'champion-loop-answer-'));
    release = path.join(dir, 'release');
    harness = await createLoopHarness({
      candidates: [{ name: 'a', overrides: { fixture_wait_for: release, fixture_epochs: 2 } }],
    });
  });

  afterAll(async () => {
    await harness?.dispose();
    await rm(dir, { recursive: true, force: true });
  });

  /** How many updates of `name` the loop's current run accepted (a refused one leaves no event). */
  async function acceptedUpdates(loopId: string, name: string): Promise<number> {
    const history = await harness.client.workflow.getHandle(loopWorkflowId(loopId)).fetchHistory();
    return (history.events ?? []).filter(
      (event) => event.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name === name,
    ).length;
  }

  it('two starts of one loop sent at once start it once; the other says it is running and starts nothing', async () => {
    const start = () => championLoopCli(harness.server, ['start', 'racing', '--config', harness.configFile]);
    const [first, second] = await Promise.all([start(), start()]);
    const said = [first, second].map((result) => `${result.exitCode} ${String(result.stdout).trim()}`).sort();
    expect(said[0]).toMatch(/^0 loop racing is already running \(workflow champion-loop\/racing.*\); nothing started/);
    expect(said[1]).toMatch(/^0 started loop racing \(workflow champion-loop\/racing\)/);
    // One run of the loop's workflow, the one that started.
    const { count } = await harness.client.workflow.count(`WorkflowId = '${loopWorkflowId('racing')}'`);
    expect(count).toBe(1);
    expect((await championLoopCli(harness.server, ['stop', 'racing', '--now'])).exitCode).toBe(0);
    await harness.result('racing');
  });

  it('three starts at once by Update-with-Start: one starts the loop, each answered from its run with its view', async () => {
    const outcomes = await Promise.all([1, 2, 3].map(() => harness.startWith('atomic')));
    expect(outcomes.map((outcome) => outcome.kind).sort()).toEqual(['already-running', 'already-running', 'started']);
    // The run that started answered the start that started it, in its first workflow task.
    const started = outcomes.find((outcome) => outcome.kind === 'started');
    expect(started?.view).toMatchObject({ loop_id: 'atomic', generation: 1 });
    for (const outcome of outcomes) expect(outcome.view?.generation).toBe(1);
    // Every start that found no running loop before it sent its own went with the update (at least the one that started).
    expect(await acceptedUpdates('atomic', 'start')).toBeGreaterThanOrEqual(1);
    const { count } = await harness.client.workflow.count(`WorkflowId = '${loopWorkflowId('atomic')}'`);
    expect(count).toBe(1);
    expect((await championLoopCli(harness.server, ['stop', 'atomic', '--now'])).exitCode).toBe(0);
    await harness.result('atomic');
  });

  it('two advances sent at once open one generation, the other refused with its reason; an advance naming a generation the loop is past is refused', async () => {
    await harness.startWith('twice', { lanes: harness.config.lanes.slice(0, 1), parallel: 1 });
    await harness.waitFor('twice', (view) => view.in_flight.length > 0);
    const both = await Promise.all(
      [1, 2].map(() => championLoopCli(harness.server, ['advance', 'twice', '--reason', 'labels changed'])),
    );
    expect(both.map((result) => result.exitCode).sort()).toEqual([0, 1]);
    const refused = both.find((result) => result.exitCode === 1);
    // Whenever the second came: while the first was pending, once the loop was past generation 1,
    // or at the generation the first had just opened (its query read generation 2).
    expect(refused?.stderr).toMatch(
      /already has an advance pending from generation 1|past generation 1 this advance names|opened generation 2 by an advance from generation 1 \(labels changed\)/,
    );
    console.log(`two advances at once: the second refused with: ${refused?.stderr.trim()}`);
    await harness.waitFor('twice', (view) => view.generation === 2 && view.in_flight.length > 0, 60_000);
    // A retry of the first, as a script would send it: it names generation 1, which the loop is past.
    const retry = await championLoopCli(harness.server, [
      'advance',
      'twice',
      '--reason',
      'labels changed',
      '--generation',
      '1',
    ]);
    expect(retry.exitCode).toBe(1);
    expect(retry.stderr).toContain(
      "loop 'twice' is at generation 2, past generation 1 this advance names: generation 1 was advanced already, and that advance opened generation 2 (labels changed); nothing changed",
    );
    const view = await harness.view('twice');
    expect(view).toMatchObject({ generation: 2, advance_reason: null });
    expect(rowsOf((await harness.ledger('twice')).rows, 'generation').map((row) => row.generation)).toEqual([1, 2]);
    // Its lane is the next test's: stopped at once, its running job is cancelled.
    expect((await championLoopCli(harness.server, ['stop', 'twice', '--now'])).exitCode).toBe(0);
    await harness.result('twice');
  });

  it('an empty advance is refused by the workflow and changes nothing; a valid one answers with the view and opens the next generation; a second stop is refused', async () => {
    await harness.startWith('answer', { lanes: harness.config.lanes.slice(0, 1), parallel: 1 });
    await harness.waitFor('answer', (view) => view.in_flight.length > 0);

    const empty = await championLoopCli(harness.server, ['advance', 'answer', '--reason', '   ']);
    expect(empty.exitCode).toBe(1);
    expect(empty.stderr).toMatch(/advance needs a reason/);
    const unchanged = await harness.view('answer');
    expect(unchanged).toMatchObject({ generation: 1, advance_reason: null });
    expect(await acceptedUpdates('answer', 'advance')).toBe(0);
    expect(rowsOf((await harness.ledger('answer')).rows, 'generation')).toHaveLength(1);

    const advanced = await championLoopCli(harness.server, ['advance', 'answer', '--reason', 'labels changed']);
    expect(advanced.exitCode, advanced.stderr).toBe(0);
    expect(advanced.stdout).toMatch(
      /loop answer: generation 1, round \d+: advancing to generation 2 before any new job \(labels changed\)/,
    );
    await harness.waitFor('answer', (view) => view.generation === 2 && view.in_flight.length > 0, 60_000);
    expect(
      rowsOf((await harness.ledger('answer')).rows, 'generation').map((row) => [row.generation, row.reason]),
    ).toEqual([
      [1, 'initial'],
      [2, 'labels changed'],
    ]);

    const stop = await championLoopCli(harness.server, ['stop', 'answer']);
    expect(stop.exitCode, stop.stderr).toBe(0);
    expect(stop.stdout).toMatch(/loop answer: generation 2, round \d+: stopping after running work finishes/);
    const again = await championLoopCli(harness.server, ['stop', 'answer']);
    expect(again.exitCode).toBe(1);
    expect(again.stderr).toMatch(/loop 'answer' is already stopping; nothing changed/);
    // The same update from the `temporal` CLI (the dev server accepts updates), refused the same way.
    const cli = await temporalCli(harness.server, [
      'workflow',
      'update',
      'execute',
      '--workflow-id',
      loopWorkflowId('answer'),
      '--name',
      'stop',
    ]);
    expect(cli.exitCode).not.toBe(0);
    expect(`${cli.stdout}${cli.stderr}`).toMatch(/already stopping/);
    expect(await acceptedUpdates('answer', 'stop')).toBe(1);

    // The running work may finish now: the loop stops after it.
    await writeFile(release, '');
    const result = await harness.result('answer');
    expect(result.view).toMatchObject({ generation: 2, stopping: true, in_flight: [] });
    // A loop that has ended (or never was) is said to be so; an advance without a reason says that first.
    const ended: [string[], RegExp][] = [
      [['stop', 'answer'], /loop 'answer' is not running \(completed\)/],
      [['advance', 'answer', '--reason', 'late'], /loop 'answer' is not running \(completed\)/],
      [['advance', 'answer', '--reason', ' '], /advance needs a reason/],
      [['advance', 'ghost', '--reason', 'why'], /no loop 'ghost' here/],
    ];
    for (const [args, says] of ended) {
      const late = await championLoopCli(harness.server, args);
      expect(late.exitCode, args.join(' ')).toBe(1);
      expect(late.stderr, args.join(' ')).toMatch(says);
    }
  });
});
