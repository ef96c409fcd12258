import { describe, it, expect } from 'vitest';
import * as constants from '../../src/rules/constants.js';

describe('constants', () => {
  it('keep the values of the Python loop', () => {
    expect({ ...constants }).toEqual({
      TRAIN_SEED_BASE: 20260928,
      DEFAULT_BASE_SEED: 20261200,
      ALPHA: 0.01,
      ROUND_ENSEMBLE_FROM: 3,
      ROUND_ENSEMBLE_MAX: 24,
      MANIFEST_NAME: 'teacher-members.json',
      TEACHER_PATH: 'artifacts/teachers/gen-{generation}/insample.jsonl',
      VALIDATION_FRACTION: '0.10',
      HELD_OUT_FRACTION: '0.10',
      ENSEMBLE_STATUS: 'ensemble',
    });
  });
});
