import proto from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { pollerMode, pollerOptions } from '../../src/workers/pollers.js';
import { ORCHESTRATOR_QUEUE } from '../../src/workflows/queues.js';
import { championLoopAt } from '../client/champion-loop-cli.js';
import { temporalCli } from '../helpers/loop-checks.js';
import { createLoopHarness, type LoopHarness } from '../helpers/loop-harness.js';

// Issue 45: workers poll with the SDK's autoscaling pollers (PollerBehavior) unless told
// otherwise (CHAMPION_LOOP_POLLERS, `worker --pollers`). Every test that runs workers in-process
// (test/helpers/loop-harness.ts) or as processes runs them with it; here the setting itself, and
// a loop step polled and run by an orchestrator and a lane created without a mode (the default).
const { TaskQueueKind, TaskQueueType } = proto.temporal.api.enums.v1;

describe('autoscaling pollers', () => {
  it('are the default; `fixed` leaves the SDK its fixed maximum; anything else is refused', () => {
    expect(pollerMode(undefined)).toBe('autoscaling');
    expect(pollerMode('')).toBe('autoscaling');
    expect(pollerMode('fixed')).toBe('fixed');
    expect(() => pollerMode('sometimes', '--pollers')).toThrow(
      '--pollers must be autoscaling or fixed (got "sometimes")',
    );
    expect(pollerOptions('fixed')).toEqual({});
    const autoscaling = pollerOptions('autoscaling');
    expect(autoscaling.workflowTaskPollerBehavior).toMatchObject({ type: 'autoscaling', minimum: 1 });
    expect(autoscaling.activityTaskPollerBehavior).toMatchObject({ type: 'autoscaling', minimum: 1 });
  });

  describe('on a dev server', () => {
    let loop: LoopHarness;

    beforeAll(async () => {
      delete process.env.CHAMPION_LOOP_POLLERS;
      loop = await createLoopHarness({ candidates: [{ name: 'solo', overrides: { fixture_epochs: 1 } }], lanes: 1 });
    }, 120_000);

    afterAll(async () => {
      await loop?.dispose();
    });

    it('an orchestrator and a lane with autoscaling pollers poll their queues and run a loop step', async () => {
      await loop.startWith('pollers', { saturation_evals: 1000 });
      const view = await loop.waitFor('pollers', (state) => state.test_evals >= 1, 120_000);
      expect(view.test_evals).toBeGreaterThanOrEqual(1);
      const pollersOf = async (name: string, type: proto.temporal.api.enums.v1.TaskQueueType) =>
        (
          await loop.client.workflowService.describeTaskQueue({
            namespace: loop.client.options.namespace,
            taskQueue: { name, kind: TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
            taskQueueType: type,
          })
        ).pollers ?? [];
      expect(await pollersOf(ORCHESTRATOR_QUEUE, TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW)).not.toEqual([]);
      expect(await pollersOf(loop.lanes[0] ?? '', TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY)).not.toEqual([]);
      await loop.client.workflow.getHandle('champion-loop/pollers').terminate('the test is over');
    });

    it('`temporal worker list` shows the orchestrator and each lane, by their task queues (worker heartbeats)', async () => {
      const queues = async (): Promise<string[]> => {
        const listed = await temporalCli(loop.server, ['worker', 'list', '--output', 'json']);
        expect(listed.exitCode, String(listed.stderr)).toBe(0);
        const workers = JSON.parse(String(listed.stdout) || '[]') as {
          workerHeartbeat?: { taskQueue?: string; status?: string };
        }[];
        return workers
          .map((worker) => worker.workerHeartbeat ?? {})
          .filter((heartbeat) => heartbeat.status === 'WORKER_STATUS_RUNNING')
          .map((heartbeat) => heartbeat.taskQueue ?? '');
      };
      // The SDK sends a worker heartbeat once a minute: the listing fills after the first one.
      await vi.waitFor(
        async () => expect(await queues()).toEqual(expect.arrayContaining([ORCHESTRATOR_QUEUE, loop.lanes[0] ?? ''])),
        { timeout: 150_000, interval: 2_000 },
      );
    }, 180_000);

    it('`worker --pollers` takes autoscaling or fixed and refuses anything else before it connects', async () => {
      const refused = await championLoopAt(loop.server, ['worker', 'orchestrator', '--pollers', 'sometimes']);
      expect(refused.exitCode).not.toBe(0);
      expect(refused.stderr).toContain('--pollers must be autoscaling or fixed (got "sometimes")');
      const fromEnv = await championLoopAt(loop.server, ['worker', 'gpu', '--cpu', '--device', '0'], {
        env: { CHAMPION_LOOP_POLLERS: 'many' },
      });
      expect(fromEnv.exitCode).not.toBe(0);
      expect(fromEnv.stderr).toContain('CHAMPION_LOOP_POLLERS must be autoscaling or fixed (got "many")');
    });
  });
});
