// Issue 43, item 3: on a real H200 a teacher build whose lane got SIGTERM (a preemption) was
// recorded failed, never tried again, and its generation's student never trained. Here the same
// fault in real processes: the lane workers are `champion-loop worker gpu --cpu` processes, and the
// one running the teacher's member evaluations gets SIGTERM in the middle of one.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loopWorkflowId } from '../../src/workflows/ids.js';
import { stopSignal } from '../../src/workflows/messages.js';
import { processesMentioning, rowsOf } from '../helpers/loop-checks.js';
import { createProcessLoop, type ProcessLoop } from '../helpers/process-loop.js';
import { teacherEvaluationOnItsLane } from '../helpers/lane-faults.js';
import { terminateWorker } from '../helpers/worker-processes.js';

const TEACHER_PATH = 'artifacts/teachers/gen-{generation}/insample.jsonl';

describe('a teacher build whose lane is stopped under it', () => {
  let loop: ProcessLoop;

  beforeAll(async () => {
    loop = await createProcessLoop({
      candidates: [
        // Each member evaluation takes 3 s: long enough to be caught in the middle.
        { name: 'a', overrides: { fixture_quality: 0.4, fixture_eval_sleep_ms: 3000 } },
        { name: 'b', overrides: { fixture_quality: 0.7, fixture_eval_sleep_ms: 3000 } },
        { name: 'student', overrides: { fixture_quality: 0.5, gate_soft_targets: TEACHER_PATH } },
      ],
      lanes: 2,
      loop: {
        parallel: 2,
        saturation_evals: 1000,
        teacher_after_round: 1,
        teacher_path: TEACHER_PATH,
        timeouts: { heartbeat: '5s', schedule_to_start: '5s' },
      },
    });
  }, 240_000);

  afterAll(async () => {
    await loop?.dispose();
  });

  it('runs the build again (on its lane back, or another), records no failed teacher, and the student trains', async () => {
    const loopId = 'teacher-term';
    expect((await loop.startWith(loopId)).kind).toBe('started');
    const { state_dir: stateDir } = loop.configFor(loopId);
    // A member's development evaluation, under the lane worker the teacher build runs on.
    const { lane, pid } = await teacherEvaluationOnItsLane(loop, loopId, 120_000);
    const { device, worker } = loop.laneOf(lane);
    expect(await terminateWorker(worker)).toEqual({ exitCode: 0, signal: null });
    expect((await processesMentioning(stateDir)).some((p) => p.pid === pid)).toBe(false);
    await loop.restart(device);
    // The build runs again and the student trains from its teacher.
    await vi.waitFor(
      async () => {
        const { rows } = await loop.ledger(loopId);
        const trained = rowsOf(rows, 'run').some((row) => row.candidate === 'student' && row.status === 'trained');
        if (!trained) throw new Error('the student has not trained yet');
      },
      { timeout: 180_000, interval: 1000 },
    );
    await loop.client.workflow.getHandle(loopWorkflowId(loopId)).signal(stopSignal);
    await loop.result(loopId);
    const { rows } = await loop.ledger(loopId);
    const teachers = rowsOf(rows, 'teacher');
    expect(teachers.map((row) => row.status)).toEqual(['ok']);
    console.log(
      `teacher preemption: the build's lane ${lane} stopped under a member evaluation; the build ran again and the student trained (${rowsOf(rows, 'run').length} runs)`,
    );
  });
});
