import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runHistories } from '../../src/ledger-copy/history-runs.js';
import { generationRunOf } from '../../src/ledger/history/index.js';
import { loopWorkflowId } from '../../src/workflows/ids.js';
import { runIdFor } from '../../src/rules/ids.js';
import { expectSameLedger, laneFaultLoop, runBounded, type BoundedLoop } from '../helpers/bounded-loop.js';
import { loseLaneWhile, type LaneFault } from '../helpers/lane-faults.js';
import { createProcessLoop, type ProcessLoop } from '../helpers/process-loop.js';

// Continue-as-new forced every few events while children run, and a lane worker killed in the
// middle of that: the lost child's report (lane unavailable) reaches a later run of the generation.
const ROUNDS = 3;
const TARGET = runIdFor(1, 2, 'a');

describe('continue-as-new forced mid-generation while a lane is lost', () => {
  let loop: ProcessLoop;
  let baseline: BoundedLoop;

  beforeAll(async () => {
    loop = await createProcessLoop(laneFaultLoop(ROUNDS, TARGET));
    // Undisturbed: a server with the default history bounds and no fault.
    baseline = await runBounded(loop, 'undisturbed', { rounds: ROUNDS });
    // The same server (database) again, now suggesting continue-as-new after 25 events.
    await loop.server.stop();
    await loop.restartServer({ dynamicConfig: { 'limit.historyCount.suggestContinueAsNew': 25 } });
  }, 240_000);

  afterAll(async () => {
    await loop?.dispose();
  });

  it('kill -9 of a lane while the generation continues-as-new every few events: every run and eval recorded once, as in the undisturbed loop', async () => {
    const faults: LaneFault[] = [];
    const disturbed = await runBounded(loop, 'can-lane-kill', {
      rounds: ROUNDS,
      during: async () => {
        faults.push(await loseLaneWhile(loop, 'can-lane-kill', TARGET, 'SIGKILL'));
      },
    });
    const compared = expectSameLedger(disturbed, baseline);

    const chain = (await runHistories(loop.client, loopWorkflowId('can-lane-kill'))).map(generationRunOf);
    expect(chain.length).toBeGreaterThanOrEqual(3);
    expect((await runHistories(loop.client, loopWorkflowId('undisturbed'))).length).toBe(1);
    // The lost child was carried over at least once, and its lane-unavailable report reached a later run than the one that launched it.
    const carrying = chain.filter((run) =>
      run.input.carry?.inFlight.some((flight) => flight.childId.endsWith('/g001/r0002/a')),
    );
    expect(carrying.length).toBeGreaterThanOrEqual(1);
    const reportedIn = chain.findIndex((run) =>
      run.events.some(
        (event) =>
          event.kind === 'run-reported' &&
          event.report.childId.endsWith('/g001/r0002/a') &&
          event.report.laneUnavailable,
      ),
    );
    const launchedIn = chain.findIndex((run) =>
      run.events.some((event) => event.kind === 'child-started' && event.workflowId.endsWith('/g001/r0002/a')),
    );
    expect(reportedIn).toBeGreaterThan(launchedIn);
    console.log(
      `continue-as-new + lane kill -9: ${chain.length} runs of the generation, ${carrying.length} carried the lost child; ` +
        `group gone ${faults[0]?.groupGoneMs} ms, job on ${faults[0]?.movedTo} after ${faults[0]?.movedMs} ms`,
    );
    console.log(
      `continue-as-new + lane kill -9: ${faults.length + chain.length - 1} faults injected (${faults.length} kill, ${chain.length - 1} continue-as-new), ${compared} rows compared`,
    );
  });
});
