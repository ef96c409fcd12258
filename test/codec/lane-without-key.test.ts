import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderStatus } from '../../src/client/render-status.js';
import { loopDataConverter } from '../../src/codec/data-converter.js';
import { loopWorkflowId } from '../../src/workflows/ids.js';
import { stopSignal } from '../../src/workflows/messages.js';
import { expectEachRunAndEvalOnce, rowsOf } from '../helpers/loop-checks.js';
import { createLoopHarness, type LoopHarness } from '../helpers/loop-harness.js';
import { startWorkerProcess, type WorkerProcess } from '../helpers/worker-processes.js';

// Issue 48, item 3 (the lane's part): a lane started without CHAMPION_LOOP_CODEC_KEYS while an
// encrypted loop runs took its jobs and failed them ("Failed to parse activity args ... Unknown
// encoding: binary/encrypted"): 102 runs train_failed in 9 minutes. A job the lane cannot decode
// is the lane's fault, not the run's: the lane says which key it lacks and stops taking jobs, the
// job is sent again apart from the run's attempts and runs on a lane that has the key.
// Two lanes: the harness's (in this process, with the key) and a worker process without it,
// started before the loop (a lane started after is refused at start already).

const KEYS = { CHAMPION_LOOP_CODEC_KEYS: `2026-12:${randomBytes(32).toString('base64')}` };

describe('a lane without the payload key beside an encrypted loop', () => {
  let harness: LoopHarness;
  let keyless: WorkerProcess;

  beforeAll(async () => {
    harness = await createLoopHarness({
      candidates: [{ name: 'a' }, { name: 'b' }],
      lanes: 1,
      loop: {
        lanes: [
          { host: 'test', device: 0 },
          { host: 'nokey', device: 0 },
        ],
        parallel: 2,
      },
      dataConverter: loopDataConverter(KEYS),
    });
    keyless = await startWorkerProcess(
      { kind: 'gpu', host: 'nokey', device: 0 },
      { address: harness.server.address, namespace: harness.server.namespace, env: { CHAMPION_LOOP_CODEC_KEYS: '' } },
    );
  });

  afterAll(async () => {
    keyless?.signal('SIGKILL');
    await harness?.dispose();
  });

  it('the lane says which key it lacks and stops; its job runs on the other lane, no run charged', async () => {
    const loopId = 'sealed-two-lanes';
    await harness.startWith(loopId, {});
    // Before, the lane kept taking the loop's jobs and failing them, and never stopped.
    const ended = await Promise.race([
      keyless.exited,
      new Promise<null>((resolve) => setTimeout(() => resolve(null), 120_000)),
    ]);
    expect(ended, `the keyless lane still runs; it printed:\n${keyless.output()}`).not.toBeNull();
    expect(keyless.output()).toContain("this loop's payloads are encrypted (key '2026-12')");
    expect(keyless.output()).toContain('CHAMPION_LOOP_CODEC_KEYS');
    expect(keyless.output()).toContain('stops taking jobs');
    expect(ended?.exitCode).toBe(1);
    // `status` names the lane and the key it lacks (before, only the lane's own log said it).
    const down = await harness.waitFor(
      loopId,
      (view) => view.lanes.some((lane) => lane.queue === 'champion-loop.nokey.gpu0' && lane.lost_to !== undefined),
      240_000,
    );
    expect(renderStatus(down)).toMatch(
      /\n {2}lane champion-loop\.nokey\.gpu0: .*\n {4}last lost under a job: \w+: (Failed to parse activity args for activity \w+: )?lane champion-loop\.nokey\.gpu0 has no codec key: this loop's payloads are encrypted \(key '2026-12'\) and this process has no codec key: set CHAMPION_LOOP_CODEC_KEYS/,
    );
    await harness.waitFor(loopId, (view) => view.round >= 2 && view.test_evals >= 2, 240_000);
    await harness.client.workflow.getHandle(loopWorkflowId(loopId)).signal(stopSignal);
    await harness.result(loopId);
    const { rows } = await harness.ledger(loopId);
    expectEachRunAndEvalOnce(rows, loopId);
    const runs = rowsOf(rows, 'run');
    expect(runs.length).toBeGreaterThanOrEqual(2);
    expect(runs.filter((row) => row.status !== 'trained').map((row) => `${row.run_id}: ${row.status}`)).toEqual([]);
    expect(rowsOf(rows, 'eval').filter((row) => row.status !== 'ok')).toEqual([]);
  }, 400_000);
});
