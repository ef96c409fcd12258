import { expandGeneration } from '../rules/ids.js';

/** One candidate configuration: a name, a base config file and the overrides merged over it. */
export interface Candidate {
  readonly name: string;
  /** Absolute once loaded by `loadCandidates`; as written in the file from `parseCandidates`. */
  readonly base_config: string;
  readonly overrides: Readonly<Record<string, unknown>>;
}

/** The override that makes a candidate a student of the generation's teacher file. */
const TEACHER_OVERRIDE = 'gate_soft_targets';

/**
 * The teacher file a student candidate distils from, `{generation}` expanded, or null for an
 * ordinary candidate. Relative paths are relative to the loop's workdir, as the trainer sees them.
 */
export function teacherTarget(candidate: Pick<Candidate, 'overrides'>, generation: number): string | null {
  const value = candidate.overrides[TEACHER_OVERRIDE];
  return typeof value === 'string' ? expandGeneration(value, generation) : null;
}

/** A path as the loop's subprocesses see it: relative ones resolve against the workdir. */
export function inWorkdir(workdir: string, file: string): string {
  return file.startsWith('/') ? file : `${workdir}/${file}`;
}

/** teacherTarget's file as the loop names it (in the workdir): the one the generation waits for. */
export function teacherFile(
  candidate: Pick<Candidate, 'overrides'>,
  generation: number,
  workdir: string,
): string | null {
  const target = teacherTarget(candidate, generation);
  return target === null ? null : inWorkdir(workdir, target);
}
