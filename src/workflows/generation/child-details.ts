// The static details (Markdown, user metadata shown under "Summary & Details" in the Web UI) of
// each child a generation starts: what the job is, on which lane, from what. Written once at the
// start, so they say what the job was asked to do, never how it ended (its history says that).
import type { Candidate, TeacherMember } from '../../activities/types.js';
import type { RunRow } from '../../ledger/rows.js';
import type { EvalRow } from '../../rules/types.js';
import { countsText, type ComparedBlock } from './details.js';

/** Teacher members listed by name; more are counted. */
const MAX_LISTED = 24;

const code = (text: string): string => `\`${text.replace(/`/g, "'")}\``;

export interface RunChildFacts {
  readonly runId: string;
  readonly generation: number;
  readonly round: number;
  readonly seed: number;
  readonly candidate: Candidate;
  readonly split: string;
  readonly lane: string;
  readonly attempt: number;
  /** Set when the run was trained before (only evaluations left) or is an ensemble's. */
  readonly run: RunRow | null;
  readonly unscored: readonly string[] | null;
  readonly ensemble: boolean;
}

/** A training run child: its run, candidate and what is left to do. */
export function runChildDetails(facts: RunChildFacts): string {
  const { run, unscored } = facts;
  const todo = facts.ensemble
    ? `Score the ensemble's ${unscored?.length ?? 0} checkpoint(s) on the test role.`
    : run
      ? `Trained before: score ${unscored?.length ?? run.checkpoints.length} checkpoint(s) on the test role.`
      : 'Train, then score every checkpoint on the test role.';
  const overrides = Object.keys(facts.candidate.overrides).length > 0 ? JSON.stringify(facts.candidate.overrides) : '';
  return [
    `**${facts.ensemble ? 'Ensemble' : 'Training run'}** ${code(facts.ensemble ? (run?.run_id ?? facts.runId) : facts.runId)}`,
    '',
    `- generation ${facts.generation}, round ${facts.round}, seed ${facts.seed}, attempt ${facts.attempt}`,
    `- lane ${code(facts.lane)}`,
    ...(facts.ensemble
      ? []
      : [
          `- candidate ${code(facts.candidate.name)}: base config ${code(facts.candidate.base_config)}${overrides ? `, overrides ${code(overrides)}` : ''}`,
        ]),
    ...(facts.split ? [`- split ${code(facts.split)}`] : []),
    `- ${todo}`,
  ].join('\n');
}

/** A teacher build child: its generation, file and members. */
export function teacherChildDetails(facts: {
  readonly generation: number;
  readonly teacherPath: string;
  readonly members: readonly TeacherMember[];
  readonly lane: string;
  readonly attempt: number;
}): string {
  const listed = facts.members.slice(0, MAX_LISTED).map((member) => `  - ${code(member.run_id)}`);
  const more = facts.members.length - listed.length;
  return [
    `**Teacher build** of generation ${facts.generation}`,
    '',
    `- file ${code(facts.teacherPath)}`,
    `- lane ${code(facts.lane)}, attempt ${facts.attempt}`,
    `- ${facts.members.length} member run(s):`,
    ...listed,
    ...(more > 0 ? [`  - and ${more} more`] : []),
  ].join('\n');
}

/** A reserve check child: the champion it scores, its test counts, and when it became due. */
export function reserveChildDetails(facts: {
  readonly champion: EvalRow;
  readonly testEvals: number;
  readonly compared: ComparedBlock;
  readonly lane: string;
  readonly attempt: number;
}): string {
  const { champion } = facts;
  return [
    `**Reserve check** of champion ${code(champion.run_id)} ${code(champion.checkpoint_name)}`,
    '',
    `- generation ${champion.generation}; due after ${facts.testEvals} test evals`,
    `- on test: ${countsText(champion, facts.compared)}`,
    `- lane ${code(facts.lane)}, attempt ${facts.attempt}`,
    '- The generation judges the verdict from the reserve counts (docs/behaviour.md, section 6).',
  ].join('\n');
}
