import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CANDIDATE_NAME_MAX } from '../../src/config/candidates.js';
import { LOOP_ID_MAX, WORKFLOW_ID_MAX, longestDerivedId, loopIdProblem } from '../../src/client/loop-id.js';
import { runIdFor } from '../../src/rules/ids.js';
import { reserveCheckWorkflowId, trainingRunWorkflowId } from '../../src/workflows/ids.js';

describe('loop ids and the workflow ids derived from them', () => {
  it('the longest loop id allowed derives no workflow id over Temporal`s limit; one character more is refused', () => {
    const longest = 'L'.repeat(LOOP_ID_MAX);
    expect(loopIdProblem(longest)).toBeNull();
    expect(longestDerivedId(longest)).toHaveLength(WORKFLOW_ID_MAX);
    expect(loopIdProblem(`${longest}x`)).toContain(`is ${LOOP_ID_MAX + 1} characters, at most ${LOOP_ID_MAX} fit`);
    // The 975 characters (900 worked only with short candidate names and checkpoints).
    expect(loopIdProblem('M'.repeat(975))).toContain("Temporal's 1000-character limit");
    expect(loopIdProblem('bad/id')).toBe("loop id 'bad/id' must be letters, digits, '_', '-', '.'");
  });

  it('any allowed loop id, candidate name, checkpoint file name and counts give ids that fit', () => {
    const name = (max: number) => fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, { maxLength: max });
    fc.assert(
      fc.property(
        name(LOOP_ID_MAX).filter((id) => id.length > 0 && id.length <= LOOP_ID_MAX),
        name(CANDIDATE_NAME_MAX).filter((id) => id.length > 0 && id.length <= CANDIDATE_NAME_MAX),
        fc.integer({ min: 1, max: 255 - 3 }),
        fc.integer({ min: 1, max: 99_999 }),
        fc.integer({ min: 1, max: 1_000_000 }),
        (loopId, candidate, stemLength, round, evals) => {
          expect(loopIdProblem(loopId)).toBeNull();
          const ids = [
            trainingRunWorkflowId(loopId, round, round, candidate, 9),
            reserveCheckWorkflowId(
              loopId,
              round,
              runIdFor(round, round, candidate),
              `${'k'.repeat(stemLength)}.pt`,
              evals,
              9,
            ),
          ];
          for (const id of ids) expect(id.length).toBeLessThanOrEqual(WORKFLOW_ID_MAX);
        },
      ),
    );
  });
});
