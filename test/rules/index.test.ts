import { describe, it, expect } from 'vitest';
import * as rules from '../../src/rules/index.js';

describe('the rules index', () => {
  it('re-exports every rule', () => {
    expect(Object.keys(rules).sort()).toEqual(
      [
        'ALPHA',
        'DEFAULT_BASE_SEED',
        'ENSEMBLE_STATUS',
        'HELD_OUT_FRACTION',
        'MANIFEST_NAME',
        'ROUND_ENSEMBLE_FROM',
        'ROUND_ENSEMBLE_MAX',
        'SUMMARY_KEYS',
        'TEACHER_PATH',
        'TRAIN_SEED_BASE',
        'VALIDATION_FRACTION',
        'applyTestEval',
        'checkpointEpoch',
        'checkpointStem',
        'compareKeyFor',
        'comparedBlock',
        'counts',
        'dominates',
        'ensembleRunId',
        'erfc',
        'evalSummary',
        'expandGeneration',
        'frontChampion',
        'gateAuc',
        'heldoutResult',
        'incrementalParetoFront',
        'nextChampionDefault',
        'openChampionState',
        'padGeneration',
        'padRound',
        'paretoFront',
        'reserveVerdict',
        'roundEnsembleRunId',
        'roundManifestName',
        'runIdFor',
        'splitSeed',
        'trainingSeed',
        'worseZTest',
        'zeroPad',
      ].sort(),
    );
  });
});
