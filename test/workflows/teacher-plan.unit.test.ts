import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { RunRow } from '../../src/ledger/rows.js';
import {
  emptyTeacherPlan,
  nextTeacherAttempt,
  planTeacherRound,
  reofferTeacher,
  teacherDispatched,
  teacherDue,
  teacherMembers,
  teacherRunFinal,
  type TeacherPlan,
} from '../../src/workflows/teacher-plan.js';

const run = (runId: string, status: RunRow['status']): RunRow => ({
  type: 'run',
  generation: 1,
  round: 1,
  seed: 1,
  candidate: runId,
  run_id: runId,
  config_path: `configs/${runId}.yaml`,
  config_sha256: `sha-${runId}`,
  status,
  train_rc: status === 'trained' ? 0 : 1,
  started: '2026-01-05T08:00:00Z',
  finished: '2026-01-05T08:01:00Z',
  epochs_run: 1,
  checkpoints: [],
  error: null,
});

const member = (runId: string) => ({
  run_id: runId,
  config_path: `configs/${runId}.yaml`,
  config_sha256: `sha-${runId}`,
});

describe('the teacher plan', () => {
  it('takes the ordinary runs of rounds up to N and ignores later rounds, or all rounds when N is 0', () => {
    const plan = planTeacherRound(planTeacherRound(emptyTeacherPlan, 1, 2, ['r1-a', 'r1-b']), 2, 2, ['r2-a']);
    expect(plan).toEqual({ pending: ['r1-a', 'r1-b', 'r2-a'], planned: 3, members: [], offered: false });
    expect(planTeacherRound(plan, 3, 2, ['r3-a'])).toBe(plan);
    expect(planTeacherRound(emptyTeacherPlan, 1, 0, ['r1-a'])).toBe(emptyTeacherPlan);
  });

  it('makes a trained run a member, drops a failed one, and ignores runs it does not wait for', () => {
    let plan = planTeacherRound(emptyTeacherPlan, 1, 1, ['b', 'a', 'c']);
    plan = teacherRunFinal(plan, run('b', 'trained'));
    plan = teacherRunFinal(plan, run('c', 'train_failed'));
    expect(teacherRunFinal(plan, run('student', 'trained'))).toBe(plan);
    expect(plan.pending).toEqual(['a']);
    expect(teacherDue(plan, 1, 1)).toBe(false);
    plan = teacherRunFinal(plan, run('a', 'trained'));
    // A run reported twice counts once.
    expect(teacherRunFinal(plan, run('a', 'trained'))).toBe(plan);
    expect(teacherDue(plan, 1, 1)).toBe(true);
    expect(teacherMembers(plan)).toEqual([member('a'), member('b')]);
  });

  it('is due only from round N on, with something planned, nothing pending and not offered yet', () => {
    const done: TeacherPlan = { pending: [], planned: 2, members: [member('a')], offered: false };
    expect(teacherDue(done, 2, 2)).toBe(true);
    expect(teacherDue(done, 3, 2)).toBe(true);
    expect(teacherDue(done, 1, 2)).toBe(false);
    expect(teacherDue({ ...done, offered: true }, 2, 2)).toBe(false);
    expect(teacherDue({ ...done, planned: 0 }, 2, 2)).toBe(false);
    expect(teacherDue({ ...done, pending: ['b'] }, 2, 2)).toBe(false);
    expect(teacherDue(done, 2, 0)).toBe(false);
  });

  it('whatever order the runs end in: due once all are final, members are the trained ones in run id order', () => {
    const outcomes = fc.uniqueArray(fc.record({ id: fc.stringMatching(/^[a-z]{1,4}$/), trained: fc.boolean() }), {
      selector: (entry) => entry.id,
      minLength: 1,
      maxLength: 8,
    });
    fc.assert(
      fc.property(
        outcomes.chain((list) =>
          fc.tuple(fc.constant(list), fc.shuffledSubarray(list, { minLength: list.length, maxLength: list.length })),
        ),
        ([list, order]) => {
          let plan = planTeacherRound(
            emptyTeacherPlan,
            1,
            1,
            list.map((entry) => entry.id),
          );
          for (const [index, entry] of order.entries()) {
            expect(teacherDue(plan, 1, 1)).toBe(false);
            plan = teacherRunFinal(plan, run(entry.id, entry.trained ? 'trained' : 'train_failed'));
            expect(plan.pending).toHaveLength(list.length - index - 1);
          }
          expect(teacherDue(plan, 1, 1)).toBe(true);
          const trained = list
            .filter((entry) => entry.trained)
            .map((entry) => entry.id)
            .sort();
          expect(teacherMembers(plan).map((entry) => entry.run_id)).toEqual(trained);
        },
      ),
    );
  });

  describe('on a resumption', () => {
    const offered = (): TeacherPlan => {
      const plan = teacherRunFinal(planTeacherRound(emptyTeacherPlan, 1, 1, ['r1-a']), run('r1-a', 'trained'));
      expect(teacherDue(plan, 1, 1)).toBe(true);
      expect(nextTeacherAttempt(plan)).toBe(1);
      return teacherDispatched({ ...plan, offered: true }, 1);
    };

    it('offers a build that was offered and failed again, under a new attempt', () => {
      const plan = offered();
      expect(teacherDue(plan, 1, 1)).toBe(false);
      const again = reofferTeacher(plan, false);
      expect(teacherDue(again, 1, 1)).toBe(true);
      expect(teacherMembers(again)).toEqual([member('r1-a')]);
      expect(nextTeacherAttempt(again)).toBe(2);
      // Offered again and failed again: the next resumption takes the next attempt.
      const third = reofferTeacher(teacherDispatched({ ...again, offered: true }, 2), false);
      expect(nextTeacherAttempt(third)).toBe(3);
    });

    it('takes a new attempt for a plan carried from before attempts were kept', () => {
      const { lastAttempt: _lastAttempt, ...older } = offered();
      expect(nextTeacherAttempt(reofferTeacher(older, false))).toBe(2);
    });

    it('leaves a plan alone whose build waits or runs, or that was never offered', () => {
      const plan = offered();
      expect(reofferTeacher(plan, true)).toBe(plan);
      const unoffered = planTeacherRound(emptyTeacherPlan, 1, 1, ['r1-a']);
      expect(reofferTeacher(unoffered, false)).toBe(unoffered);
    });

    it('keeps the highest dispatched attempt', () => {
      const plan = teacherDispatched(teacherDispatched(emptyTeacherPlan, 3), 2);
      expect(nextTeacherAttempt(plan)).toBe(4);
    });
  });
});
