import process from 'node:process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EvalRow } from '../../src/rules/types.js';
import { loopWorkflowId } from '../../src/workflows/ids.js';
import { stopSignal } from '../../src/workflows/messages.js';
import { rowsOf, stateOf } from '../helpers/loop-checks.js';
import { createLoopHarness, type LoopHarness } from '../helpers/loop-harness.js';

interface Member {
  run_id: string;
  validation_gate_auc: number | null;
  validation_fail_to_pass: number;
}

describe('teachers, students and ensembles', () => {
  let harness: LoopHarness;

  beforeAll(async () => {
    harness = await createLoopHarness({
      candidates: [
        { name: 'weak', overrides: { fixture_quality: 0.3 } },
        { name: 'strong', overrides: { fixture_quality: 0.8 } },
        {
          name: 'student',
          overrides: { fixture_quality: 0.5, gate_soft_targets: 'artifacts/teachers/gen-{generation}/insample.jsonl' },
        },
      ],
      loop: { teacher_after_round: 2, saturation_evals: 1000 },
    });
  });

  afterAll(async () => {
    await harness?.dispose();
  });

  it('the student waits for the teacher, which is built once from the early runs; its ensemble and the round ensembles compete', async () => {
    await harness.start('teach');
    await harness.waitFor('teach', (view) => view.round >= 5, 150_000);
    // Then until the student has trained and been scored at least once.
    const deadline = Date.now() + 120_000;
    while (!(await harness.ledger('teach')).rows.some((row) => row.type === 'eval' && row.candidate === 'student')) {
      if (Date.now() > deadline) throw new Error('the student never trained');
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    await harness.client.workflow.getHandle(loopWorkflowId('teach')).signal(stopSignal);
    const result = await harness.result('teach');
    const { rows, state } = await harness.ledger('teach');
    expect(stateOf(state)).toEqual(stateOf(result.view));

    const teachers = rowsOf(rows, 'teacher');
    expect(teachers).toHaveLength(1);
    const [teacher] = teachers;
    expect(teacher?.status).toBe('ok');
    expect(teacher?.path).toBe(`${harness.dir}/artifacts/teachers/gen-001/insample.jsonl`);
    expect(teacher?.members.map((member) => member.run_id).sort()).toEqual([
      'champ-g001-r0001-strong',
      'champ-g001-r0001-weak',
      'champ-g001-r0002-strong',
      'champ-g001-r0002-weak',
    ]);

    const runs = rowsOf(rows, 'run');
    const studentRuns = runs.filter((row) => row.candidate === 'student');
    // The student sat out every round planned before its teacher file existed, then trained every round.
    expect(studentRuns.length).toBeGreaterThan(0);
    expect(studentRuns.every((row) => row.round > 2 && row.status === 'trained')).toBe(true);
    const teacherIndex = rows.indexOf(teacher as never);
    expect(rows.findIndex((row) => row.type === 'run' && row.candidate === 'student')).toBeGreaterThan(teacherIndex);

    const ensemble = runs.find((row) => row.run_id === 'ens-g001-teacher');
    expect(ensemble).toMatchObject({
      status: 'ensemble',
      candidate: 'ensemble_teacher_members',
      round: 2,
      checkpoints: ['teacher-members.json'],
    });
    expect(ensemble?.members).toHaveLength(4);
    const ensembleEval: EvalRow | undefined = rowsOf(rows, 'eval').find((row) => row.run_id === 'ens-g001-teacher');
    expect(ensembleEval).toMatchObject({
      role: 'test',
      status: 'ok',
      checkpoint_name: 'teacher-members.json',
      epoch: null,
    });
    expect(ensembleEval?.manifest).toBe(ensemble?.config_path);

    const roundEnsembles = runs.filter((row) => row.candidate === 'ensemble_round_members');
    expect(roundEnsembles.map((row) => row.run_id)).toEqual(expect.arrayContaining(['ens-g001-r0003-all']));
    for (const row of roundEnsembles) {
      const members = row.members as Member[];
      // Every trained run of rounds <= r (the student's too), best validation AUC first.
      const trained = runs
        .filter((run) => run.status === 'trained' && run.round <= row.round)
        .map((run) => run.run_id)
        .sort();
      expect(members.map((member) => member.run_id).sort()).toEqual(trained);
      const aucs = members.map((member) => member.validation_gate_auc ?? -1);
      expect(aucs).toEqual([...aucs].sort((x, y) => y - x));
      expect(rowsOf(rows, 'eval').filter((evalRow) => evalRow.run_id === row.run_id)).toHaveLength(1);
    }
  });

  it('offers a failed build again when the loop is resumed, and builds it', async () => {
    const settings = {
      teacher_after_round: 1,
      saturation_evals: 1000,
      teacher_path: `${harness.dir}/loops/again/teacher-{generation}.jsonl`,
    };
    const teacherRows = async () => rowsOf((await harness.ledger('again')).rows, 'teacher');
    const until = async (done: (rows: Awaited<ReturnType<typeof teacherRows>>) => boolean) => {
      const deadline = Date.now() + 120_000;
      while (!done(await teacherRows())) {
        if (Date.now() > deadline) throw new Error('no such teacher row');
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    };
    const handle = harness.client.workflow.getHandle(loopWorkflowId('again'));
    // A teacher-scores command that fails: the build is recorded failed, once.
    await harness.startWith('again', {
      ...settings,
      commands: { ...harness.config.commands, teacher_scores: [process.execPath, '-e', 'process.exit(4)', '--'] },
    });
    await until((rows) => rows.length > 0);
    await harness.waitFor('again', (view) => view.round >= 3, 60_000);
    await handle.signal(stopSignal);
    await harness.result('again');
    expect((await teacherRows()).map((row) => row.status)).toEqual(['failed']);
    // Resumed with a working command: offered again, built, and the file is there.
    expect((await harness.startWith('again', settings)).kind).toBe('resumed');
    await until((rows) => rows.some((row) => row.status === 'ok'));
    await handle.signal(stopSignal);
    await harness.result('again');
    const rows = await teacherRows();
    expect(rows.map((row) => row.status)).toEqual(['failed', 'ok']);
    expect(rows[1]?.path).toBe(`${harness.dir}/loops/again/teacher-001.jsonl`);
    expect(rows[1]?.members.map((member) => member.run_id).sort()).toEqual([
      'champ-g001-r0001-strong',
      'champ-g001-r0001-weak',
    ]);
  });
});

describe('a loop whose only candidate is a waiting student', () => {
  let harness: LoopHarness;

  beforeAll(async () => {
    harness = await createLoopHarness({
      candidates: [{ name: 'pupil', overrides: { gate_soft_targets: 'teachers/given.jsonl' } }],
      loop: { saturation_evals: 1000 },
    });
  });

  afterAll(async () => {
    await harness?.dispose();
  });

  it('idles without growing its history until the teacher file appears, then trains the student', async () => {
    await harness.start('idle');
    const idle = await harness.waitFor('idle', (view) => view.idle);
    expect(idle.round).toBe(0);
    const handle = harness.client.workflow.getHandle(loopWorkflowId('idle'));
    const before = (await handle.describe()).historyLength;
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    // One waiting activity, however long the wait: no timer or re-read per poll.
    expect((await handle.describe()).historyLength - before).toBeLessThanOrEqual(2);

    const { mkdir, rename, writeFile } = await import('node:fs/promises');
    await mkdir(`${harness.dir}/teachers`, { recursive: true });
    // Whole or not at all, as the loop writes teacher files: the student may start the moment it appears.
    await writeFile(`${harness.dir}/teachers/given.jsonl.tmp`, '{"id": "item-000001", "margin": 1.5}\n');
    await rename(`${harness.dir}/teachers/given.jsonl.tmp`, `${harness.dir}/teachers/given.jsonl`);
    await harness.waitFor('idle', (view) => view.test_evals > 0, 30_000);
    await handle.signal(stopSignal);
    await harness.result('idle');
    // No round was planned while the student waited: its first round is round 1 (two lanes may
    // finish round 2 first, so look it up rather than take the first row).
    const runs = rowsOf((await harness.ledger('idle')).rows, 'run');
    expect(Math.min(...runs.map((row) => row.round))).toBe(1);
    expect(runs.find((row) => row.round === 1)).toMatchObject({
      run_id: 'champ-g001-r0001-pupil',
      status: 'trained',
      error: null,
    });
  });
});
