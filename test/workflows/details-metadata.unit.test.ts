import { describe, expect, it } from 'vitest';
import type { RunRow } from '../../src/ledger/rows.js';
import type { EvalRow } from '../../src/rules/types.js';
import { laneActivities, orchestratorActivities, packageActivities } from '../../src/activities/index.js';
import { registryActivities } from '../../src/registry/index.js';
import type { LoopActivities } from '../../src/workflows/activity-types.js';
import { activitySummary } from '../../src/workflows/activity-summary.js';
import {
  reserveChildDetails,
  runChildDetails,
  teacherChildDetails,
} from '../../src/workflows/generation/child-details.js';

// The user metadata the loop's workflows put on their commands for the Web UI's history: a
// summary on every activity, static details on every child. The live check (they reach the
// server and the page) is test/ui/web-ui.test.ts.

const champion = {
  type: 'eval',
  generation: 2,
  role: 'test',
  run_id: 'champ-g002-r0003-base',
  candidate: 'base',
  round: 3,
  checkpoint: 'runs/champ-g002-r0003-base/checkpoint-2.pt',
  checkpoint_name: 'checkpoint-2.pt',
  checkpoint_sha256: null,
  epoch: 2,
  config_path: 'configs/base.yaml',
  status: 'ok',
  validation: null,
  result: {
    fail_to_pass_count: 4,
    fail_count: 60,
    fail_to_pass_rate: 4 / 60,
    pass_to_fail_count: 9,
    pass_correct_count: 231,
    pass_count: 240,
    pass_to_fail_rate: 9 / 240,
    macro_f1: 0.9,
    s_f1: 0.9,
  },
  gate_auc: null,
  gate_curve: null,
  reject_band: null,
  decided: null,
  eval_json: 'evals/x.json',
  finished: '2026-03-01T10:00:00Z',
} satisfies EvalRow;

describe('activity summaries', () => {
  it('say what each activity the workflows call does, in one line', () => {
    expect(activitySummary('trainRun', { runId: 'champ-g001-r0002-base' })).toBe('train champ-g001-r0002-base');
    expect(
      activitySummary('evaluateRun', {
        run: { run_id: 'champ-g001-r0002-base' },
        checkpoints: ['a', 'b', 'c'],
        role: 'test',
      }),
    ).toBe('score 3 checkpoints of champ-g001-r0002-base on test');
    expect(activitySummary('evaluateReserve', { champion, checkpointName: 'checkpoint-2.pt' })).toBe(
      'score champion champ-g002-r0003-base checkpoint-2.pt on reserve',
    );
    expect(activitySummary('prepareRun', { runId: 'champ-g001-r0002-base' })).toBe(
      'write the job config of champ-g001-r0002-base',
    );
    expect(activitySummary('buildSplit', { generation: 3, splitSeed: 1003 })).toBe(
      'build the split of generation 3 (seed 1003)',
    );
    expect(activitySummary('buildTeacher', { generation: 1, members: [{}, {}] })).toBe(
      'build the teacher of generation 1 from 2 members',
    );
    expect(activitySummary('writeEnsembleManifest', { name: 'round-ensemble', members: [{}] })).toBe(
      'write the ensemble manifest of 1 member (round-ensemble)',
    );
    expect(activitySummary('missingFiles', { files: ['a'] })).toBe('check 1 file exist');
    expect(activitySummary('readCandidates', { file: 'candidates.yaml' })).toBe(
      'read the candidates file candidates.yaml',
    );
    expect(activitySummary('waitForChange', { files: ['t.jsonl'], maxMs: 3_600_000 })).toBe(
      'wait for 1 teacher file or a change of the candidates file',
    );
    expect(activitySummary('waitForChange', { files: [], maxMs: 120_000 })).toBe(
      'wait up to 120 s for a change of the candidates file',
    );
    expect(activitySummary('requestPackaging', { champion })).toBe(
      'hand champion champ-g002-r0003-base checkpoint-2.pt of generation 2 to packaging',
    );
    expect(activitySummary('packageChampion', { champion })).toBe(
      'package champion champ-g002-r0003-base checkpoint-2.pt',
    );
    expect(activitySummary('childOutcome', { workflowId: 'w/1', kind: 'run' })).toBe(
      'ask what became of run child w/1',
    );
    expect(activitySummary('stopPackaging', {})).toBe('stop packaging at once');
    expect(activitySummary('registerChampion', { champion })).toBe(
      'register champion champ-g002-r0003-base checkpoint-2.pt in MLflow',
    );
  });

  it('cover every activity a worker registers', () => {
    // The orchestrator's client activities are made per worker (they hold its client): named here.
    const clientActivities: (keyof LoopActivities)[] = ['requestPackaging', 'stopPackaging', 'childOutcome'];
    const names = [
      ...Object.keys({ ...orchestratorActivities, ...laneActivities, ...packageActivities, ...registryActivities }),
      ...clientActivities,
      'probeLane',
    ];
    for (const name of names) expect(activitySummary(name, {}), name).not.toBe(name);
  });

  it('fall back to the activity type, and stay one bounded line whatever the input', () => {
    expect(activitySummary('somethingNew', { runId: 'x' })).toBe('somethingNew');
    expect(activitySummary('trainRun', undefined)).toBe('train ?');
    const long = activitySummary('trainRun', { runId: `a\nb${'x'.repeat(500)}` });
    expect(long).not.toContain('\n');
    expect(long.length).toBe(200);
    expect(long.endsWith('…')).toBe(true);
  });
});

describe("children's static details", () => {
  const candidate = { name: 'wide', base_config: 'configs/base.yaml', overrides: { width: 2 } };
  const facts = {
    runId: 'champ-g001-r0002-wide',
    generation: 1,
    round: 2,
    seed: 1002,
    candidate,
    split: '/state/splits/gen-001.yaml',
    lane: 'champion-loop.box.gpu0',
    attempt: 1,
    run: null,
    unscored: null,
    ensemble: false,
  };

  it('describe a training run: its run, candidate, split and what is left to do', () => {
    const text = runChildDetails(facts);
    expect(text.split('\n')).toEqual([
      '**Training run** `champ-g001-r0002-wide`',
      '',
      '- generation 1, round 2, seed 1002, attempt 1',
      '- lane `champion-loop.box.gpu0`',
      '- candidate `wide`: base config `configs/base.yaml`, overrides `{"width":2}`',
      '- split `/state/splits/gen-001.yaml`',
      '- Train, then score every checkpoint on the test role.',
    ]);
    const run = { run_id: 'champ-g001-r0002-wide', checkpoints: ['a', 'b'] } as unknown as RunRow;
    expect(runChildDetails({ ...facts, attempt: 2, run, unscored: ['b'] })).toContain(
      '- Trained before: score 1 checkpoint(s) on the test role.',
    );
    const ensemble = { run_id: 'ens-g001-r0002', checkpoints: ['ensemble'] } as unknown as RunRow;
    const text2 = runChildDetails({ ...facts, run: ensemble, unscored: ['ensemble'], ensemble: true });
    expect(text2).toContain('**Ensemble** `ens-g001-r0002`');
    expect(text2).not.toContain('candidate');
  });

  it("describe a reserve check with the champion's test counts", () => {
    const text = reserveChildDetails({
      champion,
      testEvals: 200,
      compared: 'result',
      lane: 'champion-loop.box.gpu1',
      attempt: 1,
    });
    expect(text).toContain('**Reserve check** of champion `champ-g002-r0003-base` `checkpoint-2.pt`');
    expect(text).toContain('- generation 2; due after 200 test evals');
    expect(text).toContain('- on test: Fail→Pass 4 of 60 · Pass→Fail 9 of 240');
    expect(reserveChildDetails({ champion, testEvals: 1, compared: 'decided', lane: 'l', attempt: 1 })).toContain(
      '- on test: no decided counts',
    );
  });

  it('describe a teacher build, its members listed up to 24', () => {
    const members = Array.from({ length: 30 }, (_, i) => ({
      run_id: `champ-g001-r${String(i).padStart(4, '0')}-base`,
      config_path: '',
      config_sha256: '',
    }));
    const text = teacherChildDetails({ generation: 1, teacherPath: '/w/t.jsonl', members, lane: 'l', attempt: 1 });
    expect(text).toContain('- 30 member run(s):');
    expect(text).toContain('  - `champ-g001-r0023-base`');
    expect(text).not.toContain('champ-g001-r0024-base');
    expect(text).toContain('  - and 6 more');
  });
});
