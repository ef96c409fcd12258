import { readFile, readdir, stat, writeFile, chmod, mkdir } from 'node:fs/promises';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { execa } from 'execa';
import { describe, expect, it, vi } from 'vitest';
import { COMMAND_NOT_FOUND } from '../../../src/activities/support/step-errors.js';
import { returnCode, runStep } from '../../../src/activities/support/subprocess.js';
import { setSubprocessEnv, withStepScope } from '../../../src/activities/support/step-scope.js';
import { type StepHeartbeat } from '../../../src/activities/support/step-types.js';
import { stepCgroups } from '../../../src/activities/support/step-cgroup.mjs';
import { parentOf } from '../../helpers/worker-processes.js';
import { stepMarkOf } from '../../../src/activities/support/step-survivors.mjs';
import { LaneSteps } from '../../../src/workers/lane-steps.js';
import { memoryGuard } from '../../../src/workers/memory-guard.js';
import { alive, fixtureLoop } from '../fixture-loop.js';

const PARENT = fileURLToPath(new URL('./guarded-parent.ts', import.meta.url));
/** `DAEMON N`: starts `sleep N` in a session of its own (setsid, out of the step's group), prints `daemon <pid>`. */
const DAEMON = `${process.execPath} -e "const c = require('node:child_process').spawn('sleep', [process.argv[1]], { detached: true, stdio: 'ignore' }); c.unref(); console.log('daemon ' + c.pid)"`;
/** `HIDDEN N`: as DAEMON, but the helper also clears its environment: the step's mark does not find it, only a cgroup does. */
const HIDDEN = `${process.execPath} -e "const c = require('node:child_process').spawn('/bin/sleep', [process.argv[1]], { detached: true, stdio: 'ignore', env: {} }); c.unref(); console.log('daemon ' + c.pid)"`;
/** Whether this box gives each step a cgroup of its own (cgroup v2, the worker's cgroup writable). */
const CGROUPS = stepCgroups().root !== null;
const REAPER = fileURLToPath(new URL('../../../src/activities/support/group-reaper.mjs', import.meta.url));

async function scratch(): Promise<{ dir: string; log: string }> {
  const { workdir } = await fixtureLoop();
  return { dir: workdir, log: join(workdir, 'state', 'logs', 'step.log') };
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the promise to reject');
}

/** The pid DAEMON printed in a step's log, once it has. */
function daemonPid(log: string): Promise<number> {
  return vi.waitFor(
    async () => {
      const pid = Number(/^daemon (\d+)$/m.exec(await readFile(log, 'utf8').catch(() => ''))?.[1]);
      if (!(pid > 0)) throw new Error(`no daemon pid in ${log} yet`);
      return pid;
    },
    { timeout: 10_000, interval: 50 },
  );
}

/** A lane's memory guard (2 slots, 4 GiB a job) on a device of `totalMiB` whose free memory `freeMiB` says. */
function guardedDevice(totalMiB: number, freeMiB: () => number) {
  const steps = new LaneSteps();
  const guard = memoryGuard({
    slots: 2,
    minFreeGiB: 4,
    read: () =>
      Promise.resolve({
        kind: 'gpu',
        memory: { index: 0, totalMiB, usedMiB: totalMiB - freeMiB(), freeMiB: freeMiB() },
        processes: [],
      }),
    steps,
    pollMs: 20,
  });
  return { guard, steps };
}

describe('runStep', () => {
  it('returns the exit code and appends stdout and stderr to the log', async () => {
    const { dir, log } = await scratch();
    const command = ['sh', '-c', 'echo out; echo err >&2; exit 3'];
    const first = await runStep({ step: 'demo', command, cwd: dir, log });
    const second = await runStep({ step: 'demo', command, cwd: dir, log });
    expect(first.exitCode).toBe(3);
    expect(first.signal).toBeNull();
    // The command leads its own process group.
    expect(first.pid).toBe(first.pgid);
    const text = await readFile(log, 'utf8');
    expect(text.match(/^out$/gm)).toHaveLength(2);
    expect(text.match(/^err$/gm)).toHaveLength(2);
    expect(text.slice(second.logStart)).toBe('out\nerr\n');
  });

  it('runs the command in the working directory it is given', async () => {
    const { dir, log } = await scratch();
    const result = await runStep({ step: 'pwd', command: ['sh', '-c', 'pwd > where.txt'], cwd: dir, log });
    expect(result.exitCode).toBe(0);
    expect((await readFile(join(dir, 'where.txt'), 'utf8')).trim()).toBe(dir);
  });

  it('reports a command killed by a signal as Python would: minus the signal number', async () => {
    const { dir, log } = await scratch();
    const result = await runStep({ step: 'crash', command: ['sh', '-c', 'kill -9 $$'], cwd: dir, log });
    expect(result).toMatchObject({ exitCode: null, signal: 'SIGKILL' });
    expect(returnCode(result)).toBe(-9);
  });

  it('writes megabytes of output to the log file', async () => {
    const { dir, log } = await scratch();
    const script = 'const block = "x".repeat(1 << 20); for (let i = 0; i < 16; i++) process.stdout.write(block);';
    const result = await runStep({ step: 'loud', command: [process.execPath, '-e', script], cwd: dir, log });
    expect(result.exitCode).toBe(0);
    expect((await stat(log)).size - result.logStart).toBe(16 << 20);
  });

  it('passes the variables set for subprocesses, such as a lane device', async () => {
    const { dir, log } = await scratch();
    setSubprocessEnv({ CUDA_VISIBLE_DEVICES: '3' });
    try {
      await runStep({ step: 'env', command: ['sh', '-c', 'echo "device=$CUDA_VISIBLE_DEVICES"'], cwd: dir, log });
    } finally {
      setSubprocessEnv({});
    }
    expect(await readFile(log, 'utf8')).toContain('device=3\n');
  });

  it('heartbeats with the pid, the process group and the time elapsed', async () => {
    const { dir, log } = await scratch();
    const beats: StepHeartbeat[] = [];
    // The step runs until its fourth heartbeat (a busy box may merge timer ticks: count beats, not time).
    const enough = join(dir, 'four-beats');
    const result = await runStep({
      step: 'sleepy',
      command: ['sh', '-c', `while [ ! -e '${enough}' ]; do sleep 0.05; done`],
      cwd: dir,
      log,
      heartbeat: (details) => {
        if (beats.push(details) === 4) writeFileSync(enough, '');
      },
      heartbeatIntervalMs: 100,
    });
    expect(beats.length).toBeGreaterThanOrEqual(4);
    expect(beats.every((beat) => beat.step === 'sleepy' && beat.pgid === result.pgid)).toBe(true);
    expect(beats.at(-1)?.pid).toBe(result.pid);
    expect(beats.at(-1)?.elapsedMs).toBeGreaterThan(200);
  });

  it('refuses a command that does not exist with a non-retryable error naming it and where it comes from', async () => {
    const { dir, log } = await scratch();
    const error = await rejection(
      runStep({ step: 'train', source: 'loop.yaml commands.train', command: ['/x/y', '--help'], cwd: dir, log }),
    );
    expect(error).toBeInstanceOf(ApplicationFailure);
    const failure = error as ApplicationFailure;
    expect(failure.message).toMatch(/^command not found: \/x\/y \(loop\.yaml commands\.train\)/);
    expect(failure.message).toContain('fix the command in loop.yaml');
    expect(failure.type).toBe(COMMAND_NOT_FOUND);
    expect(failure.nonRetryable).toBe(true);
  });

  it('refuses a program missing from the PATH', async () => {
    const { dir, log } = await scratch();
    const error = await rejection(
      runStep({
        step: 'evaluate',
        source: 'loop.yaml commands.evaluate',
        command: ['no-such-program-xyz'],
        cwd: dir,
        log,
      }),
    );
    expect((error as Error).message).toMatch(
      /^command not found: no-such-program-xyz \(loop\.yaml commands\.evaluate\): no program named/,
    );
  });

  it('refuses a file that is not executable', async () => {
    const { dir, log } = await scratch();
    const script = join(dir, 'bin', 'train.sh');
    await mkdir(join(dir, 'bin'));
    await writeFile(script, '#!/bin/sh\necho hi\n');
    await chmod(script, 0o644);
    const error = await rejection(
      runStep({ step: 'train', source: 'loop.yaml commands.train', command: ['bin/train.sh'], cwd: dir, log }),
    );
    expect((error as Error).message).toMatch(
      /^command not executable: bin\/train\.sh \(loop\.yaml commands\.train\): .*is not executable/,
    );
  });

  it('kills the whole process group on cancellation and rethrows the reason', async () => {
    const { dir, log } = await scratch();
    const controller = new AbortController();
    let group: { pid: number; pgid: number } | undefined;
    const running = runStep({
      step: 'stubborn',
      // The child ignores SIGTERM, so only the SIGKILL after the grace period ends it.
      command: ['sh', '-c', 'trap "" TERM; sleep 300 & sleep 301; wait'],
      cwd: dir,
      log,
      signal: controller.signal,
      killGraceMs: 300,
      onStart: (processes) => {
        group = processes;
      },
    });
    await expect.poll(() => group !== undefined, { timeout: 10_000, message: 'the step started' }).toBe(true);
    const reason = new Error('stop now');
    controller.abort(reason);
    expect(await rejection(running)).toBe(reason);
    const { pid, pgid } = group ?? { pid: 0, pgid: 0 };
    expect(alive(pid)).toBe(false);
    // The SIGKILL reaches every member at once; the last ones may take a moment to be gone.
    await expect.poll(() => alive(-pgid), { timeout: 5_000, message: 'the group is alive' }).toBe(false);
  });

  it("tells its lane's steps when a step starts and ends, by the mark /proc shows on its processes (and its setsid helper's)", async () => {
    const { dir, log } = await scratch();
    const steps = new LaneSteps();
    steps.sawDevice();
    const seen: { started: string[]; pid: number | null } = { started: [], pid: null };
    const registry = {
      started: (mark: string) => {
        seen.started.push(mark);
        steps.started(mark);
      },
      ended: (mark: string) => steps.ended(mark),
    };
    const running = withStepScope({ env: {}, steps: registry }, () =>
      runStep({
        step: 'train',
        // A helper that leaves the group (setsid), then the step itself runs a while.
        command: ['sh', '-c', `${DAEMON} 5; sleep 1`],
        cwd: dir,
        log,
        onStart: ({ pid }) => {
          seen.pid = pid;
        },
      }),
    );
    await expect.poll(() => seen.pid, { timeout: 10_000 }).not.toBeNull();
    expect(seen.started).toHaveLength(1);
    // Once the command runs (a forked child shows its parent's environment until it execs).
    await expect.poll(() => stepMarkOf(seen.pid ?? 0), { timeout: 5_000 }).toBe(seen.started[0]);
    const result = await running;
    expect(result.gpu).toMatchObject({ peakMiB: 0, seconds: expect.any(Number) as number });
    expect(result.gpu?.seconds).toBeGreaterThanOrEqual(0.9);
    expect(steps.count).toBe(0);
    // The helper carried the same mark (it was killed at the step's end, so read it from the log).
    expect(await readFile(log, 'utf8')).toMatch(/killed 1 process .* outside its process group/);
  });

  it("waits at its start for room for its job's need on its lane's GPU, heartbeating and saying why in its log", async () => {
    const { dir, log } = await scratch();
    let freeMiB = 10 * 1024;
    const { guard } = guardedDevice(80 * 1024, () => freeMiB);
    const beats: { waiting?: string; pid: number }[] = [];
    let started = false;
    const running = withStepScope({ env: {}, steps: guard.steps! }, () =>
      runStep({
        step: 'train',
        command: ['sh', '-c', 'echo trained'],
        cwd: dir,
        log,
        heartbeat: (details) => beats.push(details),
        heartbeatIntervalMs: 20,
        gpuNeed: { mib: 30 * 1024, why: "1.1 x the 27.3 GiB candidate deep's runs held at most" },
        onStart: () => {
          started = true;
        },
      }),
    );
    await expect.poll(() => beats.length, { timeout: 5_000 }).toBeGreaterThan(2);
    expect(started).toBe(false);
    expect(beats[0]).toEqual({
      step: 'train',
      pid: 0,
      pgid: 0,
      elapsedMs: expect.any(Number) as number,
      waiting:
        "waiting for GPU memory: device 0 has 10.0 GiB free, a job needs 30 GiB (1.1 x the 27.3 GiB candidate deep's runs held at most)",
      // The device as the lane read it, for `status` (issue 43).
      device: { index: 0, totalMiB: 80 * 1024, freeMiB: 10 * 1024, heldMiB: 0, needMiB: 30 * 1024 },
      // The same in words, for the Web UI's heartbeat details.
      gpu: expect.stringMatching(
        /^train waiting for GPU memory since \d\d:\d\d:\d\dZ \(\d+s\), needs 30720 MiB; device 0: 81920 MiB, free 10240, as the lane last read it$/,
      ) as string,
    });
    freeMiB = 40 * 1024;
    const result = await running;
    expect(result.exitCode).toBe(0);
    const text = await readFile(log, 'utf8');
    // Said once, before the command's own output, and the wait's end too.
    expect(text.match(/train: waiting for GPU memory/g)).toHaveLength(1);
    expect(text).toMatch(
      /train: waiting for GPU memory: .*\ntrain: the GPU has room after \d+ s; starting\ntrained\n$/,
    );
    expect(result.gpu).toMatchObject({ peakMiB: 0, seconds: expect.any(Number) as number });
  });

  it("asks its lane for room with its activity's Temporal priority key, so a less urgent step never takes its room", async () => {
    const { dir, log } = await scratch();
    const asked: (number | undefined)[] = [];
    const registry = {
      admit: (_mark: string, need: { mib: number } | undefined, wait: { priorityKey?: number }) => {
        asked.push(wait.priorityKey);
        return Promise.resolve({ needMiB: need?.mib ?? 0, slot: asked.length });
      },
      started: () => undefined,
      ended: () => null,
    };
    const step = () =>
      withStepScope({ env: {}, steps: registry }, () =>
        runStep({ step: 'reserve', command: ['true'], cwd: dir, log, gpuNeed: { mib: 1024, why: 'a test' } }),
      );
    // A reserve check's activity (step-priority.ts: key 1), then a step outside any activity.
    await new MockActivityEnvironment({ priority: { priorityKey: 1 } }).run(step);
    await step();
    expect(asked).toEqual([1, undefined]);
  });

  it('stopped while it waits for GPU memory, it starts nothing and holds nothing on its lane', async () => {
    const { dir, log } = await scratch();
    const { guard, steps } = guardedDevice(8192, () => 192);
    const abort = new AbortController();
    let started = false;
    const running = withStepScope({ env: {}, steps: guard.steps! }, () =>
      runStep({
        step: 'train',
        command: ['sh', '-c', 'echo trained'],
        cwd: dir,
        log,
        signal: abort.signal,
        onStart: () => {
          started = true;
        },
      }),
    );
    await expect
      .poll(async () => readFile(log, 'utf8').catch(() => ''), { timeout: 5_000 })
      .toMatch(/waiting for GPU memory/);
    abort.abort(new Error('stopped now'));
    expect(await rejection(running)).toEqual(new Error('stopped now'));
    expect(started).toBe(false);
    expect(steps.count).toBe(0);
  });

  it('takes a stopped step off its lane too', async () => {
    const { dir, log } = await scratch();
    const steps = new LaneSteps();
    const abort = new AbortController();
    const running = withStepScope({ env: {}, steps }, () =>
      runStep({ step: 'train', command: ['sleep', '30'], cwd: dir, log, signal: abort.signal, killGraceMs: 100 }),
    );
    await expect.poll(() => steps.count, { timeout: 10_000 }).toBe(1);
    abort.abort(new Error('cancelled'));
    await rejection(running);
    expect(steps.count).toBe(0);
  });

  it("stops the steps of a lane's scope when the lane stops: SIGTERM, then SIGKILL only after the lane's kill grace", async () => {
    const { dir, log } = await scratch();
    // A trainer that saves a checkpoint on SIGTERM (1 s here), as a spot VM's notice allows.
    const saving = ['sh', '-c', 'trap "echo saving; sleep 1; echo saved; exit 143" TERM; echo ready; sleep 300 & wait'];
    const stopped = async (killGraceMs: number): Promise<string> => {
      const lane = new AbortController();
      let started = false;
      // Both stops write one log: this one's lines are those after what is there now.
      const before = (await readFile(log, 'utf8').catch(() => '')).length;
      const running = withStepScope({ env: {}, killGraceMs, stopping: lane.signal }, () =>
        runStep({
          step: 'train',
          command: saving,
          cwd: dir,
          log,
          onStart: () => {
            started = true;
          },
        }),
      );
      await expect.poll(() => started, { timeout: 10_000, message: 'the step started' }).toBe(true);
      // The trap is set once the shell has said so.
      await expect
        .poll(async () => (await readFile(log, 'utf8').catch(() => '')).slice(before).includes('ready'), {
          timeout: 10_000,
        })
        .toBe(true);
      const reason = new Error('lane stopped (SIGTERM)');
      lane.abort(reason);
      expect(await rejection(running)).toBe(reason);
      return (await readFile(log, 'utf8')).slice(before);
    };
    // A grace longer than the save: the trainer finishes it.
    expect(await stopped(10_000)).toContain('saved');
    // A grace shorter than the save: SIGKILL cuts it short.
    const cut = (await stopped(200)).split('saving').pop() ?? '';
    expect(cut).not.toContain('saved');
  });

  it('kills what a step left running outside its process group (setsid) when it ends or is stopped, and says so in its log', async () => {
    const { dir, log } = await scratch();
    const stopped = new AbortController();
    for (const [rest, signal] of [
      ['', undefined],
      ['; sleep 300', stopped.signal],
    ] as const) {
      const marker = String(3000 + Math.floor(Math.random() * 1000));
      const running = runStep({
        step: 'train',
        command: ['sh', '-c', `${DAEMON} ${marker}${rest}`],
        cwd: dir,
        log,
        ...(signal ? { signal, killGraceMs: 200 } : {}),
      });
      const daemon = await daemonPid(log);
      if (signal) stopped.abort(new Error('stop now'));
      await running.catch(() => undefined);
      await expect.poll(() => alive(daemon), { timeout: 5_000, message: `daemon ${daemon} is alive` }).toBe(false);
      const text = await readFile(log, 'utf8');
      expect(text).toContain(
        `train: killed 1 process the step left running outside its process group: pid ${daemon} (sleep ${marker})`,
      );
      await writeFile(log, '');
    }
  });

  it.skipIf(!CGROUPS)(
    "kills a helper that left the step's group and cleared its environment, by the step's cgroup (where the box gives steps one), and says so in its log",
    async () => {
      const { dir, log } = await scratch();
      const marker = String(5000 + Math.floor(Math.random() * 1000));
      const running = runStep({ step: 'train', command: ['sh', '-c', `${HIDDEN} ${marker}`], cwd: dir, log });
      const daemon = await daemonPid(log);
      // Out of the step's group, and nothing in its environment says whose it is.
      expect(stepMarkOf(daemon)).toBeNull();
      await running;
      await expect.poll(() => alive(daemon), { timeout: 5_000, message: `daemon ${daemon} is alive` }).toBe(false);
      expect(await readFile(log, 'utf8')).toContain(
        `train: killed 1 process the step left running outside its process group: pid ${daemon} (/bin/sleep ${marker})`,
      );
      // The step's cgroup is gone with it.
      const root = stepCgroups().root as string;
      expect((await readdir(root)).filter((name) => name.startsWith(`step-${process.pid}.`))).toEqual([]);
    },
  );

  it("says how its steps are held together: a cgroup each, under the worker's own, or why there is none", () => {
    const { root, why } = stepCgroups();
    if (root === null) expect(why).toMatch(/no cgroup v2 is mounted|is not writable/);
    else expect(why).toBe(`each step runs in a cgroup of its own under ${root}`);
  });

  it('leaves no process of the group behind when the command exits', async () => {
    const { dir, log } = await scratch();
    let pgid = 0;
    const result = await runStep({
      step: 'leaky',
      command: ['sh', '-c', 'sleep 300 & echo started'],
      cwd: dir,
      log,
      onStart: (processes) => {
        pgid = processes.pgid;
      },
    });
    expect(result.exitCode).toBe(0);
    // runStep kills the group once its leader exits; on a busy machine the signal lands a moment later.
    await expect.poll(() => alive(-pgid), { timeout: 5_000, message: 'the leftover sleep is alive' }).toBe(false);
  });
});

/** Start a stand-in worker that runs one step with runStep; resolves once the step runs. */
async function guardedParent(log: string, command: readonly string[]) {
  const parent = execa(process.execPath, ['--import', 'tsx', PARENT, log, ...command], {
    cwd: fileURLToPath(new URL('../../..', import.meta.url)),
    reject: false,
  });
  let line = '';
  parent.stdout.on('data', (chunk: Buffer) => {
    line += chunk.toString('utf8');
  });
  await expect.poll(() => line.includes('\n'), { timeout: 30_000, message: 'the parent started its step' }).toBe(true);
  return { parent, ...(JSON.parse(line) as { pid: number; pgid: number; reaper: number }) };
}

describe('group reaper', () => {
  it('kills the command and its group when the worker that started it is killed with SIGKILL', async () => {
    const { log } = await scratch();
    const { parent, pid, pgid, reaper } = await guardedParent(log, ['sh', '-c', 'sleep 300 & sleep 301; wait']);
    expect(alive(pid)).toBe(true);
    expect(await parentOf(reaper)).toBe(parent.pid);
    parent.kill('SIGKILL');
    await parent;
    await expect
      .poll(() => ({ command: alive(pid), group: alive(-pgid) }), {
        timeout: 5_000,
        message: 'the command and its group are alive',
      })
      .toEqual({ command: false, group: false });
    await expect.poll(() => alive(reaper), { timeout: 5_000, message: 'the reaper is alive' }).toBe(false);
  });

  it('kills what a step left running outside its group (setsid) when the worker that started it is killed with SIGKILL', async () => {
    const { log } = await scratch();
    const marker = String(4000 + Math.floor(Math.random() * 1000));
    const { parent } = await guardedParent(log, ['sh', '-c', `${DAEMON} ${marker}; sleep 300`]);
    const daemon = await daemonPid(log);
    expect(alive(daemon)).toBe(true);
    parent.kill('SIGKILL');
    await parent;
    await expect.poll(() => alive(daemon), { timeout: 5_000, message: `daemon ${daemon} is alive` }).toBe(false);
  });

  it.skipIf(!CGROUPS)(
    'kills a helper that left the group and cleared its environment when the worker that started it is killed with SIGKILL, by its cgroup',
    async () => {
      const { log } = await scratch();
      const marker = String(6000 + Math.floor(Math.random() * 1000));
      const { parent } = await guardedParent(log, ['sh', '-c', `${HIDDEN} ${marker}; sleep 300`]);
      const daemon = await daemonPid(log);
      expect(stepMarkOf(daemon)).toBeNull();
      parent.kill('SIGKILL');
      await parent;
      await expect.poll(() => alive(daemon), { timeout: 5_000, message: `daemon ${daemon} is alive` }).toBe(false);
    },
  );

  it('is started again at once when it is killed, and still takes the running groups down with the worker', async () => {
    const { log } = await scratch();
    const { parent, pid, pgid, reaper } = await guardedParent(log, ['sh', '-c', 'sleep 300 & sleep 301; wait']);
    process.kill(reaper, 'SIGKILL');
    // The new reaper is the parent's child too, and another process.
    const reapers = async () => {
      const found: number[] = [];
      for (const entry of await readdir('/proc')) {
        const other = Number(entry);
        if (!Number.isInteger(other) || other === reaper) continue;
        const cmdline = await readFile(`/proc/${other}/cmdline`, 'utf8').catch(() => '');
        if (cmdline.includes('group-reaper.mjs') && (await parentOf(other)) === parent.pid) found.push(other);
      }
      return found;
    };
    let next: number[] = [];
    await expect.poll(async () => (next = await reapers()).length, { timeout: 10_000, message: 'new reapers' }).toBe(1);
    expect(alive(pid)).toBe(true);
    parent.kill('SIGKILL');
    await parent;
    await expect
      .poll(() => ({ command: alive(pid), group: alive(-pgid) }), {
        timeout: 5_000,
        message: 'the command and its group are alive',
      })
      .toEqual({ command: false, group: false });
    await expect
      .poll(() => next.filter((other) => alive(other)), { timeout: 5_000, message: 'new reapers alive' })
      .toEqual([]);
  });

  it('kills the groups registered with it, not those released, when its stdin closes; bad lines kill nothing', async () => {
    const start = () => execa('sleep', ['300'], { detached: true, cleanup: false, reject: false, stdin: 'ignore' });
    const kept = start();
    const taken = start();
    const reaper = execa(process.execPath, [REAPER], { stdin: 'pipe', reject: false });
    reaper.stdin.write(`+${kept.pid}\n+${taken.pid}\n-${kept.pid}\n+0\n+1\n-x\n+-5\n`);
    reaper.stdin.end();
    const ended = await reaper;
    expect(ended.exitCode).toBe(0);
    expect((await taken).signal).toBe('SIGKILL');
    expect(alive(kept.pid ?? 0)).toBe(true);
    kept.kill('SIGKILL');
    await kept;
  });
});
