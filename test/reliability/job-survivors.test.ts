import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runIdFor } from '../../src/rules/ids.js';
import { loopWorkflowId } from '../../src/workflows/ids.js';
import { stopNowSignal } from '../../src/workflows/messages.js';
import { createProcessLoop, type ProcessLoop } from '../helpers/process-loop.js';
import { killWorker } from '../helpers/worker-processes.js';
import { alive } from '../activities/fixture-loop.js';

// Issue 26, item 3: a job owns its processes. The fixture trainer (mode daemon) starts `sleep 600`
// in a session of its own (setsid: out of the step's process group, as some launchers do), writes
// its pid and hangs. Whatever ends the job, the helper must end with it.

const RUN = runIdFor(1, 1, 'd');

describe("a trainer's setsid helper ends with its job", () => {
  let loop: ProcessLoop;

  beforeAll(async () => {
    loop = await createProcessLoop({ candidates: [{ name: 'd', overrides: { fixture_train: 'daemon' } }], lanes: 1 });
  }, 240_000);

  afterAll(async () => {
    await loop?.dispose();
  });

  /** Start `loopId` and wait until its first run's trainer has started its helper: the helper's pid. */
  async function daemonOf(loopId: string): Promise<number> {
    await loop.startWith(loopId);
    const file = path.join(loop.configFor(loopId).runs_root, RUN, 'daemon.pid');
    const pid = await vi.waitFor(
      async () => {
        const value = Number((await readFile(file, 'utf8').catch(() => '')).trim());
        if (!(value > 0)) throw new Error(`no ${file} yet`);
        return value;
      },
      { timeout: 90_000, interval: 200 },
    );
    expect(alive(pid), `the helper ${pid} runs`).toBe(true);
    return pid;
  }

  it('after stop --now: the step is stopped, the helper outside its group killed, and its log names it', async () => {
    const loopId = 'survivor-stop';
    const pid = await daemonOf(loopId);
    await loop.client.workflow.getHandle(loopWorkflowId(loopId)).signal(stopNowSignal);
    await loop.result(loopId);
    await expect.poll(() => alive(pid), { timeout: 15_000, message: `helper ${pid} gone` }).toBe(false);
    // The step kills the helper first and then names it in its log: seen gone, the line may still be on its way.
    const log = path.join(loop.configFor(loopId).state_dir, 'logs', `${RUN}.train.log`);
    await expect
      .poll(() => readFile(log, 'utf8'), { timeout: 10_000 })
      .toMatch(
        new RegExp(`train: killed 1 process the step left running outside its process group: pid ${pid} \\(sleep`),
      );
  });

  it("after a kill -9 of the lane's worker: its group reaper kills the helper too", async () => {
    const loopId = 'survivor-kill';
    const pid = await daemonOf(loopId);
    expect((await killWorker(loop.lanes[0]!)).signal).toBe('SIGKILL');
    await expect.poll(() => alive(pid), { timeout: 15_000, message: `helper ${pid} gone` }).toBe(false);
    await loop.restart(0);
  });
});
