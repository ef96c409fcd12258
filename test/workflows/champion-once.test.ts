import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runHistories } from '../../src/ledger-copy/history-runs.js';
import { foldSettingsOf } from '../../src/ledger/loop-state.js';
import type { LedgerRow } from '../../src/ledger/rows.js';
import { generationRunOf, type HistoryEvent } from '../../src/ledger/history/index.js';
import { loopWorkflowId, packagingWorkflowId } from '../../src/workflows/ids.js';
import { championSignal, stopSignal } from '../../src/workflows/messages.js';
import { copyCaughtUp, expectCopyMatches } from '../helpers/bounded-loop.js';
import { packagingIdle, rowsOf, signalHandled } from '../helpers/loop-checks.js';
import { createLoopHarness, type LoopHarness } from '../helpers/loop-harness.js';
import { recordAll } from '../helpers/record-rows.js';

// Issue 47: under band decisions the champion was a different object after every continue-as-new
// and resume, so each hand-over wrote a champion row repeating its predecessor and packaged the
// same checkpoint again. A champion is its run and checkpoint: promoted once, packaged once.

const key = (row: { run_id: string; checkpoint_name: string } | null | undefined) =>
  row ? `${row.run_id}/${row.checkpoint_name}` : null;

/** The champions the packaging workflow's histories received, by checkpoint. */
function championsSignalled(histories: readonly (readonly HistoryEvent[])[]): string[] {
  return histories.flat().flatMap((event) => {
    const signal = event.workflowExecutionSignaledEventAttributes;
    if (signal?.signalName !== championSignal.name) return [];
    const payload = signal.input?.payloads?.[0]?.data;
    const champion = payload
      ? (JSON.parse(Buffer.from(payload).toString('utf8')) as { run_id: string; checkpoint_name: string })
      : null;
    return champion ? [key(champion) ?? ''] : [];
  });
}

/** Checkpoints whose package command ran again after one that exited 0. */
function packagedAgain(rows: readonly LedgerRow[]): string[] {
  const done = new Set<string>();
  const again: string[] = [];
  for (const row of rowsOf(rows, 'package')) {
    const checkpoint = key(row) ?? '';
    if (row.event === 'launched' && done.has(checkpoint)) again.push(checkpoint);
    if (row.event === 'finished' && row.exit_code === 0) done.add(checkpoint);
  }
  return again;
}

describe('a champion is promoted and packaged once (band decisions, continue-as-new every 25 events, a resume)', () => {
  let harness: LoopHarness;

  beforeAll(async () => {
    harness = await createLoopHarness({
      candidates: [
        { name: 'low', overrides: { fixture_quality: 0.2 } },
        { name: 'mid', overrides: { fixture_quality: 0.5 } },
        { name: 'high', overrides: { fixture_quality: 0.8 } },
      ],
      loop: { saturation_evals: 1000 },
    });
  });

  afterAll(async () => {
    await harness?.dispose();
  });

  it('writes no champion row repeating its predecessor and packages no checkpoint again after a success', async () => {
    const loopId = 'once';
    const settings = { band_decisions: true, max_run_events: 25 };
    expect((await harness.startWith(loopId, settings)).kind).toBe('started');
    await harness.waitFor(loopId, (view) => view.round >= 3 && view.champion !== null, 180_000);
    await harness.client.workflow.getHandle(loopWorkflowId(loopId)).signal(stopSignal);
    await harness.result(loopId);
    // The resume: `start` again goes on from the stopped loop's carry.
    expect((await harness.startWith(loopId, settings)).kind).toBe('resumed');
    await harness.waitFor(loopId, (view) => view.round >= 5, 180_000);
    await harness.client.workflow.getHandle(loopWorkflowId(loopId)).signal(stopSignal);
    const result = await harness.result(loopId);
    await packagingIdle(harness.client, loopId);
    const config = harness.configFor(loopId, settings);
    const copy = await copyCaughtUp(harness, loopId, config.state_dir);
    const { rows } = await harness.ledger(loopId);
    expectCopyMatches(copy, rows, loopId);

    // Many hand-overs: the runs of the loop, over the stop and the start.
    const chain = (await runHistories(harness.client, loopWorkflowId(loopId))).map(generationRunOf);
    expect(chain.length).toBeGreaterThanOrEqual(6);
    expect(chain.every((run) => run.championIdentity === undefined)).toBe(true);

    const champions = rowsOf(rows, 'champion');
    expect(champions.length).toBeGreaterThanOrEqual(2);
    expect(champions.filter((row) => key(row.previous) === key(row.champion))).toEqual([]);
    // The champion rows are those the rules make of the eval rows folded straight, with no hand-over.
    const straight = recordAll(
      rows.filter((row) => row.type === 'eval' && row.generation === 1),
      foldSettingsOf(config),
    );
    expect(champions).toEqual(rowsOf(straight.out, 'champion'));
    expect(key(result.view.champion)).toBe(key(straight.state.champion));

    // Each champion handed to packaging once, each checkpoint packaged once.
    const signalled = championsSignalled(await runHistories(harness.client, packagingWorkflowId(loopId)));
    expect(signalled).toEqual([...new Set(signalled)]);
    expect(signalled).toEqual(champions.map((row) => key(row.champion)));
    expect(packagedAgain(rows)).toEqual([]);
    const finished = rowsOf(rows, 'package').filter((row) => row.event === 'finished' && row.exit_code === 0);
    expect(finished.length).toBeGreaterThanOrEqual(1);

    // The packaging workflow itself never packages a checkpoint again once its command exited 0,
    // whoever asks (here the last champion's own request, sent again by hand).
    const packaging = harness.client.workflow.getHandle(packagingWorkflowId(loopId));
    const sent = (await runHistories(harness.client, packagingWorkflowId(loopId)))
      .flat()
      .filter((event) => event.workflowExecutionSignaledEventAttributes?.signalName === championSignal.name)
      .at(-1)?.workflowExecutionSignaledEventAttributes?.input?.payloads?.[0]?.data;
    expect(sent).toBeDefined();
    await packaging.signal(championSignal, JSON.parse(Buffer.from(sent ?? []).toString('utf8')) as never);
    await signalHandled(packaging, championSignal.name);
    await packagingIdle(harness.client, loopId);
    const again = (await harness.ledger(loopId)).rows;
    expect(rowsOf(again, 'package')).toEqual(rowsOf(rows, 'package'));
    // No package command ran for it: as many package activities as checkpoints packaged.
    const commands = (await runHistories(harness.client, packagingWorkflowId(loopId)))
      .flat()
      .filter((event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'packageChampion');
    expect(commands).toHaveLength(
      rowsOf(again, 'package').filter((row) => row.event === 'launched' || row.event === 'launch_failed').length,
    );
  }, 600_000);
});
