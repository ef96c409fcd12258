// Issue 43: `status` says which jobs wait on a GPU lane for device memory, for how long, and what
// the lane says of the device (what the step needs, what is free), and the lane's device line. Real dev server, in-process
// lane with a device reading the test controls, fixture stack.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GpuReading } from '../../src/workers/gpu-memory.js';
import { loopWorkflowId } from '../../src/workflows/ids.js';
import { stopSignal } from '../../src/workflows/messages.js';
import { createLoopHarness, type LoopHarness } from '../helpers/loop-harness.js';
import { championLoopAt } from './champion-loop-cli.js';

describe('status of a loop whose jobs wait for GPU memory', () => {
  let harness: LoopHarness;
  // An 80 GiB card: 10 GiB free while something outside the loop holds the rest, then all free.
  let freeMiB = 10 * 1024;
  const read = (): Promise<GpuReading> =>
    Promise.resolve({
      kind: 'gpu',
      memory: { index: 0, totalMiB: 80 * 1024, usedMiB: 80 * 1024 - freeMiB, freeMiB },
    });

  beforeAll(async () => {
    harness = await createLoopHarness({
      candidates: [{ name: 'a' }],
      lanes: 1,
      // The lane takes the job on its 4 GiB, and its step then waits for the candidate's 40 GiB.
      loop: {
        lanes: [{ host: 'test', device: 0, slots: 1, min_free_gib: 4 }],
        gpu_needs: { candidates: { a: 40 } },
      },
      gpu: { read, pollMs: 100 },
    });
  });

  afterAll(async () => {
    await harness?.dispose();
  });

  it('names each waiting job, its lane, how long it waited and the lane`s words; none once memory is free', async () => {
    expect((await harness.startWith('waits')).kind).toBe('started');
    await harness.waitFor('waits', (view) => view.in_flight.length > 0, 60_000);
    let stdout = '';
    for (let tries = 0; tries < 40 && !stdout.includes('gpu: '); tries += 1) {
      stdout = String((await championLoopAt(harness.server, ['status', 'waits'])).stdout);
      if (!stdout.includes('gpu: ')) await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(stdout).toMatch(/^gpu: \S+ on champion-loop\.test\.gpu0 waits \d+(s|m) to train: .*40(\.0)? GiB/m);
    // The lane's device as the waiting step's beat said it: nothing of this loop runs, others hold 70 GiB.
    expect(stdout).toMatch(
      /^gpu lane champion-loop\.test\.gpu0, device 0: 81920 MiB, free 10240, this loop 0 \(0 jobs\), others 71680$/m,
    );
    expect(stdout).toMatch(/^ {2}\S+ waiting for memory to train since \d\d:\d\d:\d\d \(\d+(s|m)\), needs 40960 MiB$/m);
    const lines = stdout.split('\n');
    const block = lines.findIndex((line) => line.startsWith('gpu lane'));
    console.log([...lines.slice(block, block + 2), ...lines.filter((line) => line.startsWith('gpu: '))].join('\n'));
    const json = JSON.parse(String((await championLoopAt(harness.server, ['status', 'waits', '--json'])).stdout)) as {
      memory_waits?: string[];
      lane_devices?: { free_mib: number; others_mib: number; jobs: { state: string; need_mib: number }[] }[];
    };
    expect(json.memory_waits?.[0]).toMatch(/^gpu: \S+ on champion-loop\.test\.gpu0 waits/);
    expect(json.lane_devices?.[0]).toMatchObject({ free_mib: 10240, others_mib: 71680 });
    expect(json.lane_devices?.[0]?.jobs[0]).toMatchObject({ state: 'waiting', need_mib: 40960 });
    freeMiB = 79 * 1024;
    await harness.waitFor('waits', (view) => view.test_evals >= 1, 60_000);
    await harness.client.workflow.getHandle(loopWorkflowId('waits')).signal(stopSignal);
    await harness.result('waits');
  });
});
