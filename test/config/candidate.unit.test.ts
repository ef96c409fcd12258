import { describe, expect, it } from 'vitest';
import { teacherTarget } from '../../src/config/candidate.js';

describe('teacherTarget', () => {
  it('expands {generation} to three digits in a student candidate', () => {
    const student = { overrides: { gate_soft_targets: 'artifacts/teachers/gen-{generation}/insample.jsonl' } };
    expect(teacherTarget(student, 7)).toBe('artifacts/teachers/gen-007/insample.jsonl');
    expect(teacherTarget(student, 123)).toBe('artifacts/teachers/gen-123/insample.jsonl');
  });

  it('is null for an ordinary candidate', () => {
    expect(teacherTarget({ overrides: {} }, 1)).toBeNull();
    expect(teacherTarget({ overrides: { hidden: 512 } }, 1)).toBeNull();
  });

  it('is null when the override is not a string, as in the seed', () => {
    expect(teacherTarget({ overrides: { gate_soft_targets: 5 } }, 1)).toBeNull();
    expect(teacherTarget({ overrides: { gate_soft_targets: null } }, 1)).toBeNull();
  });
});
