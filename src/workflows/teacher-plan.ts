import type { TeacherMember } from '../activities/types.js';
import type { RunRow } from '../ledger/rows.js';
import { definedFields } from '../support/defined-fields.js';

// The in-sample teacher of a generation (docs/behaviour.md, section 7): once every ordinary (non-student) run
// of rounds <= teacher_after_round is final, one build from the trained ones; offered once, and
// once more on each resumption while the teacher file is missing (a failed build).

export interface TeacherPlan {
  /** Ordinary runs of rounds <= N planned and not final yet. */
  readonly pending: readonly string[];
  /** Ordinary runs of rounds <= N that were planned at all (the seed's plan). */
  readonly planned: number;
  /** The trained ones, the teacher's members. */
  readonly members: readonly TeacherMember[];
  readonly offered: boolean;
  /** The highest attempt of a teacher build job dispatched (absent: none recorded yet). */
  readonly lastAttempt?: number;
}

export const emptyTeacherPlan: TeacherPlan = { pending: [], planned: 0, members: [], offered: false };

/** A round was planned: its ordinary runs join the plan when the round is <= N. */
export function planTeacherRound(
  plan: TeacherPlan,
  round: number,
  afterRound: number,
  ordinaryRunIds: readonly string[],
): TeacherPlan {
  if (afterRound <= 0 || round > afterRound) return plan;
  return { ...plan, pending: [...plan.pending, ...ordinaryRunIds], planned: plan.planned + ordinaryRunIds.length };
}

/** A run became final (trained or not): it leaves the pending list; a trained one becomes a member. */
export function teacherRunFinal(plan: TeacherPlan, run: RunRow): TeacherPlan {
  if (!plan.pending.includes(run.run_id)) return plan;
  const pending = plan.pending.filter((id) => id !== run.run_id);
  const members =
    run.status === 'trained'
      ? [
          ...plan.members,
          {
            run_id: run.run_id,
            config_path: run.config_path,
            config_sha256: run.config_sha256,
            ...definedFields({ files: run.files }),
          },
        ]
      : plan.members;
  return { ...plan, pending, members };
}

/** Whether the build is due: rounds up to N planned, some run planned, none pending, not offered yet. */
export function teacherDue(plan: TeacherPlan, round: number, afterRound: number): boolean {
  return afterRound > 0 && round >= afterRound && !plan.offered && plan.planned > 0 && plan.pending.length === 0;
}

/** The members in run id order, as the seed builds from its sorted plan. */
export function teacherMembers(plan: TeacherPlan): TeacherMember[] {
  return [...plan.members].sort((a, b) => (a.run_id < b.run_id ? -1 : a.run_id > b.run_id ? 1 : 0));
}

/**
 * On a resumption (a new run `champion-loop start` began from a carry, not a continue-as-new):
 * a build that was offered and whose job is not waiting or running is offered again. When it is
 * due again, an existing teacher file means no build, as on the first offer; a missing one (the
 * build failed) is built with a new attempt, so its child workflow id is a new one.
 */
export function reofferTeacher(plan: TeacherPlan, buildWaiting: boolean): TeacherPlan {
  if (!plan.offered || buildWaiting) return plan;
  return { ...plan, offered: false, lastAttempt: plan.lastAttempt ?? 1 };
}

/** A teacher build job with this attempt was dispatched. */
export function teacherDispatched(plan: TeacherPlan, attempt: number): TeacherPlan {
  return attempt <= (plan.lastAttempt ?? 0) ? plan : { ...plan, lastAttempt: attempt };
}

/** The attempt of the build job offered next: one more than any dispatched. */
export function nextTeacherAttempt(plan: TeacherPlan): number {
  return (plan.lastAttempt ?? 0) + 1;
}
