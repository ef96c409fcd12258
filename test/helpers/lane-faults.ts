// The lane faults: a lane worker process killed (SIGKILL) or stopped (SIGTERM) while one run trains
// on it, checked the way an operator would on the box: /proc, not the loop's own word.
import { expect, vi } from 'vitest';
import { processesMentioning } from './loop-checks.js';
import type { ProcessLoop } from './process-loop.js';
import { groupMembers, killWorker, parentOf, processGroup, terminateWorker } from './worker-processes.js';

/** A step of a run whose process a fault catches in the middle. */
export type RunStep = 'train' | 'evaluate';

/** Where a step's command line names its run: the trainer its run directory, the evaluator its jobs file. */
function rootOf(loop: ProcessLoop, loopId: string, step: RunStep): string {
  const config = loop.configFor(loopId);
  return step === 'train' ? config.runs_root : config.state_dir;
}

/** The trainer (or evaluator) process of one run in one loop, once it runs. */
async function stepProcessOf(
  loop: ProcessLoop,
  loopId: string,
  runId: string,
  step: RunStep = 'train',
): Promise<{ pid: number; cmdline: string }> {
  const root = rootOf(loop, loopId, step);
  return vi.waitFor(
    async () => {
      const processes = await processesMentioning(root);
      const found = processes.find((p) => p.cmdline.includes(runId) && p.cmdline.includes(`${step}.mjs`));
      if (found === undefined) throw new Error(`no ${step} process of ${runId}: ${JSON.stringify(processes)}`);
      return found;
    },
    { timeout: 60_000, interval: 250 },
  );
}

/** Whether `pid` descends from `ancestor`. */
async function descendsFrom(pid: number, ancestor: number): Promise<boolean> {
  for (let at: number | null = pid; at !== null && at > 1; at = await parentOf(at)) if (at === ancestor) return true;
  return false;
}

/**
 * Step processes held with SIGSTOP while the test looks at them: a step that is found cannot
 * end before the fault reaches it, however slow the box answers the loop's state query. The
 * worker keeps heartbeating for a held step (its heartbeat is the worker's, not the process's).
 */
export class HeldSteps {
  private readonly pids = new Set<number>();

  hold(pid: number): void {
    if (this.pids.has(pid)) return;
    try {
      process.kill(pid, 'SIGSTOP');
      this.pids.add(pid);
    } catch {
      // Gone already: nothing to hold.
    }
  }

  release(): void {
    for (const pid of this.pids)
      try {
        process.kill(pid, 'SIGCONT');
      } catch {
        // Gone meanwhile.
      }
    this.pids.clear();
  }
}

/**
 * The trainer (or evaluator) process of one run in one loop and the lane it runs on, once the
 * loop's view has the job in flight on a lane whose worker runs that process. A step process
 * alone is not enough: on a busy box a job can be moved off its lane (a missed heartbeat) while
 * its old process has not yet been told to stop, and the view then shows it queued or elsewhere.
 * Every step process found is held (SIGSTOP) until the caller releases it, so the step is still
 * running when the view is read, on a box of any speed.
 */
async function stepOnItsLane(
  loop: ProcessLoop,
  loopId: string,
  runId: string,
  step: RunStep,
  held: HeldSteps,
): Promise<{ trainer: { pid: number; cmdline: string }; lane: string }> {
  const root = rootOf(loop, loopId, step);
  return vi.waitFor(
    async () => {
      const processes = (await processesMentioning(root)).filter(
        (p) => p.cmdline.includes(runId) && p.cmdline.includes(`${step}.mjs`),
      );
      for (const found of processes) held.hold(found.pid);
      const flight = (await loop.view(loopId)).in_flight.find((f) => f.jobId === runId);
      if (flight === undefined)
        throw new Error(`${runId} is not in flight (step processes: ${JSON.stringify(processes)})`);
      const { worker } = loop.laneOf(flight.lane);
      for (const trainer of processes)
        if (await descendsFrom(trainer.pid, worker.pid)) return { trainer, lane: flight.lane };
      throw new Error(`no ${step} process of ${runId} under ${flight.lane}'s worker: ${JSON.stringify(processes)}`);
    },
    { timeout: 60_000, interval: 250 },
  );
}

/**
 * A teacher member's development evaluation of `loopId` running under the lane worker its teacher
 * build is on, once there is one: its lane and pid. Every development evaluation found is held
 * (SIGSTOP) while the loop's view is read, so a slow answer cannot let it end first, and let go
 * on return, right before the caller's fault (a stopped process would not take a SIGTERM).
 */
export async function teacherEvaluationOnItsLane(
  loop: ProcessLoop,
  loopId: string,
  timeoutMs: number,
): Promise<{ lane: string; pid: number }> {
  const stateDir = loop.configFor(loopId).state_dir;
  const held = new HeldSteps();
  try {
    return await vi.waitFor(
      async () => {
        const evaluations = (await processesMentioning(stateDir)).filter((p) => p.cmdline.includes('development'));
        for (const evaluation of evaluations) held.hold(evaluation.pid);
        const flight = (await loop.view(loopId)).in_flight.find((f) => f.kind === 'teacher');
        if (flight === undefined) throw new Error('no teacher build in flight');
        const { worker } = loop.laneOf(flight.lane);
        for (const evaluation of evaluations)
          if (await descendsFrom(evaluation.pid, worker.pid)) return { lane: flight.lane, pid: evaluation.pid };
        throw new Error(`no development evaluation under ${flight.lane}'s worker`);
      },
      { timeout: timeoutMs, interval: 200 },
    );
  } finally {
    held.release();
  }
}

/** What a lane fault did, for the test's printout. */
export interface LaneFault {
  readonly lane: string;
  /** The lane the job ran on next. */
  readonly movedTo: string;
  /** From the signal until no process of the training's group was left. */
  readonly groupGoneMs: number;
  /** From the signal until the job ran on another lane. */
  readonly movedMs: number;
}

/**
 * While `runId` trains (or evaluates), take its lane's worker down (`SIGKILL`, or `SIGTERM` for a
 * graceful shutdown): the step's process group must be gone at once (SIGTERM: before the worker
 * exits), and the job must run again on another lane; then the worker starts again.
 */
export async function loseLaneWhile(
  loop: ProcessLoop,
  loopId: string,
  runId: string,
  signal: 'SIGKILL' | 'SIGTERM',
  step: RunStep = 'train',
  /** Waited for once the step runs, before the fault (e.g. until training has written some epochs). */
  ready?: () => Promise<void>,
): Promise<LaneFault> {
  const held = new HeldSteps();
  try {
    return await loseLaneOf(loop, loopId, runId, signal, step, held, ready);
  } finally {
    held.release();
  }
}

async function loseLaneOf(
  loop: ProcessLoop,
  loopId: string,
  runId: string,
  signal: 'SIGKILL' | 'SIGTERM',
  step: RunStep,
  held: HeldSteps,
  ready: (() => Promise<void>) | undefined,
): Promise<LaneFault> {
  let found = await stepOnItsLane(loop, loopId, runId, step, held);
  if (ready !== undefined) {
    held.release();
    await ready();
    held.hold(found.trainer.pid);
    // Found again after `ready`: the job may have moved while it waited.
    found = await stepOnItsLane(loop, loopId, runId, step, held);
  }
  const { trainer, lane } = found;
  const pgid = await processGroup(trainer.pid);
  expect(pgid, `the ${step} process of ${runId} has a process group`).not.toBeNull();
  const { device, worker } = loop.laneOf(lane);
  // Running again a moment before the fault, as a preempted step would be.
  held.release();
  const sent = Date.now();
  if (signal === 'SIGKILL') {
    expect((await killWorker(worker)).signal).toBe('SIGKILL');
    // The worker's group reaper saw its end of the pipe close and killed the whole group.
    await expect
      .poll(() => groupMembers(pgid as number), { timeout: 10_000, interval: 250, message: `group ${pgid} is gone` })
      .toEqual([]);
  } else {
    // A graceful shutdown: the worker cancels the step, which kills the group, then drains and exits 0.
    expect(await terminateWorker(worker)).toEqual({ exitCode: 0, signal: null });
    expect(await groupMembers(pgid as number)).toEqual([]);
  }
  const groupGoneMs = Date.now() - sent;
  expect((await processesMentioning(rootOf(loop, loopId, step))).filter((p) => p.pid === trainer.pid)).toEqual([]);
  // No worker polls the lane: the retry is not started within schedule_to_start, the lane is
  // marked down and the job goes back to the pool, from which another lane takes it.
  const moved = await loop.waitFor(
    loopId,
    (view) => view.in_flight.some((f) => f.jobId === runId && f.lane !== lane),
    90_000,
  );
  const movedMs = Date.now() - sent;
  await loop.restart(device);
  return { lane, movedTo: moved.in_flight.find((f) => f.jobId === runId)?.lane ?? '', groupGoneMs, movedMs };
}

/** What draining a lane did, for the test's printout and checks. */
export interface LaneDrain {
  readonly lane: string;
  /** Jobs in flight on the lane when the loop's view first showed it draining (started before the drain). */
  readonly jobsAtNotice: readonly string[];
  /** Jobs the loop put on the lane after that, until its worker exited: none, if the notice works. */
  readonly jobsAfterNotice: readonly string[];
  readonly exit: { readonly exitCode: number | null; readonly signal: string | null };
  /** From the drain command's start until the worker exited. */
  readonly drainedMs: number;
  readonly output: string;
  /** `worker gpu --drain`: how it ended and what it said. */
  readonly command: { readonly exitCode: number | null; readonly output: string };
  /** Whether the loop's view showed the lane draining while it drained. */
  readonly shownDraining: boolean;
  /** From the worker's restart until the loop's view no longer shows the lane draining. */
  readonly upAgainMs: number;
}

/**
 * While `runId` trains, drain its lane with `champion-loop worker gpu --drain` (SIGUSR2 to the
 * worker): what ran there must finish untouched, the loop put nothing new on the lane, and the
 * worker exit; then it starts again. The trainer is held (SIGSTOP) from when it is found, before
 * the loop's view is read, until the loop shows the lane draining, so the drain always finds it
 * running, and no job can come between.
 */
export async function drainLaneWhile(loop: ProcessLoop, loopId: string, runId: string): Promise<LaneDrain> {
  const held = new HeldSteps();
  let found: Awaited<ReturnType<typeof stepOnItsLane>>;
  try {
    found = await stepOnItsLane(loop, loopId, runId, 'train', held);
  } catch (error) {
    held.release();
    throw error;
  }
  const { trainer, lane } = found;
  const { device, worker } = loop.laneOf(lane);
  const sent = Date.now();
  const command = loop.drainLane(device);
  let atNotice: Set<string> | null = null;
  const after = new Set<string>();
  let exited = false;
  const exit = worker.exited.finally(() => {
    exited = true;
  });
  try {
    while (!exited) {
      const view = await loop.view(loopId);
      const onLane = view.in_flight.filter((job) => job.lane === lane).map((job) => job.jobId);
      if (atNotice === null) {
        if (view.lanes.some((entry) => entry.queue === lane && (entry.draining_until ?? null) !== null)) {
          atNotice = new Set(onLane);
          held.release();
        }
      } else for (const job of onLane) if (!atNotice.has(job)) after.add(job);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  } finally {
    // Never left stopped, whatever happened.
    held.release();
  }
  const drain = {
    lane,
    jobsAtNotice: [...(atNotice ?? [])],
    jobsAfterNotice: [...after],
    exit: await exit,
    drainedMs: Date.now() - sent,
    output: worker.output(),
    command: await command,
    shownDraining: atNotice !== null,
  };
  expect((await processesMentioning(rootOf(loop, loopId, 'train'))).filter((p) => p.pid === trainer.pid)).toEqual([]);
  await loop.restart(device);
  const restarted = Date.now();
  // Started again, the worker says it is up: the loop takes the lane back before the notice runs out.
  await loop.waitFor(
    loopId,
    (view) => view.lanes.some((entry) => entry.queue === lane && (entry.draining_until ?? null) === null),
    60_000,
  );
  return { ...drain, upAgainMs: Date.now() - restarted };
}

/** A lane lost under a run and back at once: what the fault saw. */
export interface LaneBack {
  readonly lane: string;
  /** The trainer killed with its lane, and the one that took the run up again there. */
  readonly killedPid: number;
  readonly againPid: number;
  /** From the kill until the run trained again on the same lane. */
  readonly backMs: number;
}

/**
 * While `runId` trains, kill its lane's worker (`SIGKILL`: a preemption, an OOM-killed worker)
 * and start it again at once, as a supervisor would: the run must train again on the same lane,
 * in a new trainer process.
 */
export async function loseLaneAndRestart(loop: ProcessLoop, loopId: string, runId: string): Promise<LaneBack> {
  // Held while the loop's view is read, so the training cannot end before the kill.
  const held = new HeldSteps();
  let found: Awaited<ReturnType<typeof stepOnItsLane>>;
  try {
    found = await stepOnItsLane(loop, loopId, runId, 'train', held);
  } finally {
    // Running again a moment before the fault, as a preempted step would be.
    held.release();
  }
  const { trainer, lane } = found;
  const { device, worker } = loop.laneOf(lane);
  const sent = Date.now();
  expect((await killWorker(worker)).signal).toBe('SIGKILL');
  await loop.restart(device);
  const again = await vi.waitFor(
    async () => {
      const next = await stepProcessOf(loop, loopId, runId, 'train');
      if (next.pid === trainer.pid) throw new Error(`${runId} still in its first trainer ${trainer.pid}`);
      return next;
    },
    { timeout: 90_000, interval: 500 },
  );
  const view = await loop.view(loopId);
  expect(view.in_flight.find((f) => f.jobId === runId)?.lane, `${runId} trains again on ${lane}`).toBe(lane);
  return { lane, killedPid: trainer.pid, againPid: again.pid, backMs: Date.now() - sent };
}
