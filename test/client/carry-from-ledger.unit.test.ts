// carryFromLedger on seed-format ledgers of every row kind (test/helpers/seed-ledger.ts): the carry
// continues the ledger's generation with the champion, front, counts and packaged set its rows
// fold to, scores what was trained and not scored, and keeps the teacher plan.
import { describe, expect, it } from 'vitest';
import { carryFromLedger, roundEnsemblesFromLedger, teacherFromLedger } from '../../src/client/carry-from-ledger.js';
import { parseLoopConfig, type LoopConfig } from '../../src/config/loop-config.js';
import { stateFromLedger } from '../../src/ledger/from-ledger.js';
import { foldSettingsOf } from '../../src/ledger/loop-state.js';
import type { LedgerRow } from '../../src/ledger/rows.js';
import { ROUND_ENSEMBLE_FROM, ROUND_ENSEMBLE_MAX } from '../../src/rules/constants.js';
import { roundEnsembleRunId } from '../../src/rules/ids.js';
import { rankMembers } from '../../src/workflows/round-ensembles.js';
import { teacherDue } from '../../src/workflows/teacher-plan.js';
import { seedLedger, type SeedLedgerOptions } from '../helpers/seed-ledger.js';

const STARTED = '2026-03-01T00:00:00.000Z';

function configFor(options: SeedLedgerOptions, extra: Partial<LoopConfig> = {}): LoopConfig {
  const file = parseLoopConfig(
    ['data_root: data', 'candidates: candidates.yaml', 'lanes:', '  - {host: gpu-a, device: 0}', ''].join('\n'),
    'loop.yaml',
  );
  return {
    ...file,
    workdir: '/work',
    state_dir: options.stateDir ?? 'artifacts/champion-loop',
    runs_root: options.runsRoot ?? 'artifacts/training-runs',
    saturation_evals: options.saturationEvals ?? 4,
    max_reserve_checks: options.maxReserveChecks ?? 2,
    band_decisions: options.bandDecisions ?? false,
    teacher_after_round: options.teacherAfterRound ?? 0,
    ...extra,
  };
}

const key = (row: { run_id: string; checkpoint_name: string } | null) =>
  row ? `${row.run_id}/${row.checkpoint_name}` : null;
const countOf = (rows: readonly LedgerRow[], predicate: (row: LedgerRow) => boolean) => rows.filter(predicate).length;

const CASES: SeedLedgerOptions[] = [
  { generations: 1, seed: 1 },
  { generations: 2, seed: 2 },
  { generations: 3, seed: 3 },
  { generations: 3, seed: 4, bandDecisions: true },
  { generations: 4, seed: 5, teacherAfterRound: 2, rounds: 4 },
  { generations: 3, seed: 6, bandDecisions: true, teacherAfterRound: 1, lastChampionPackage: 'launched' },
  { generations: 2, seed: 7, lastChampionPackage: 'launch_failed', maxReserveChecks: 3, saturationEvals: 3 },
  { generations: 5, seed: 8, bandDecisions: true, unscoredInLast: false, candidates: ['a', 'b', 'c', 'd'] },
];

describe('the seed-format ledger generator', () => {
  it('writes every row kind, every run status, eval role and outcome, reserve verdict and package event', () => {
    const rows = CASES.flatMap((options) => seedLedger(options).rows);
    const seen = new Set(
      rows.map((row) => {
        switch (row.type) {
          case 'run':
            return `run ${row.status}`;
          case 'eval':
            return `eval ${row.role} ${row.status} ${row.decided ? 'decided' : 'undecided'}`;
          case 'reserve_check':
            return `reserve_check ${row.stale_champion ? 'stale' : row.verdict}`;
          case 'teacher':
            return `teacher ${row.status}`;
          case 'package':
            return `package ${row.event}`;
          case 'generation':
            return `generation ${row.event}`;
          default:
            return row.type;
        }
      }),
    );
    expect([...seen].sort()).toEqual(
      [
        'champion',
        'eval reserve failed undecided',
        'eval reserve ok decided',
        'eval reserve ok undecided',
        'eval test failed undecided',
        'eval test ok decided',
        'eval test ok undecided',
        'generation advance',
        'generation start',
        'package dropped',
        'package finished',
        'package launch_failed',
        'package launched',
        'pareto_set',
        'reserve_check error',
        'reserve_check fail',
        'reserve_check pass',
        'reserve_check stale',
        'run ensemble',
        'run no_eligible_checkpoint',
        'run stale_run_dir',
        'run train_failed',
        'run trained',
        'teacher failed',
        'teacher ok',
      ].sort(),
    );
  });

  it.each(CASES)("folds, by the loop's own fold, to what it worked out from the spec: %j", (options) => {
    const { text, expected } = seedLedger(options);
    const state = stateFromLedger(text, 'ledger.jsonl', foldSettingsOf(configFor(options)), 'artifacts/champion-loop');
    expect(state.generation).toBe(expected.generation);
    expect(key(state.champion)).toBe(expected.champion);
    expect(state.pareto_set.map(key)).toEqual(expected.front);
    expect(state.test_evals).toBe(expected.testEvals);
    expect(state.tests_since_reserve_check).toBe(expected.testsSinceReserveCheck);
    expect(state.reserve_checks).toBe(expected.reserveChecks);
    expect(state.advance_reason).toBe(expected.advanceReason);
  });
});

describe('carryFromLedger on seed ledgers', () => {
  it.each(CASES)(
    "continues the ledger's generation with its champion, front, counts and packaged set: %j",
    (options) => {
      const { rows, expected } = seedLedger(options);
      const config = configFor(options);
      const carry = carryFromLedger(rows, config, STARTED);
      expect(carry).not.toBeNull();
      if (!carry) return;
      expect(carry.opening).toBeNull();
      expect(carry.state.generation).toBe(expected.generation);
      expect(key(carry.state.champion)).toBe(expected.champion);
      expect(carry.state.front.map(key)).toEqual(expected.front);
      expect(carry.state.testEvals).toBe(expected.testEvals);
      expect(carry.state.testEvals - carry.state.checkedEvals).toBe(expected.testsSinceReserveCheck);
      expect(carry.state.reserveChecks).toBe(expected.reserveChecks);
      expect(carry.state.advanceReason).toBe(expected.advanceReason);
      // The reserve-check count is the generation's ok, not stale, reserve_check rows.
      expect(carry.state.reserveChecks).toBe(
        countOf(
          rows,
          (row) =>
            row.type === 'reserve_check' &&
            row.generation === expected.generation &&
            row.status === 'ok' &&
            row.stale_champion !== true,
        ),
      );
      // New rounds open after the ledger's last: no run id of the seed's is planned again.
      expect(carry.round).toBe(expected.lastRound);
      // Trained runs with checkpoints left are scored (evaluation only: their run row is in the ledger), nothing else.
      expect(
        Object.fromEntries(carry.queue.map((job) => [job.jobId, job.kind === 'run' ? job.unscored : null])),
      ).toEqual(expected.unscored);
      for (const job of carry.queue) expect(job.kind === 'run' && job.run?.status).toBe('trained');
      // The champion goes to packaging unless a package row launched or dropped it.
      const packaged = expected.champion !== null && expected.packaged.includes(expected.champion);
      expect(carry.unpackaged.map(key)).toEqual(expected.champion && !packaged ? [expected.champion] : []);
      expect(carry.unpackaged.every((champion) => champion.requested === STARTED)).toBe(true);
      expect(carry.inFlight).toEqual([]);
      expect(carry.split).toBeNull();
    },
  );

  it('never packages the current champion again after a launch, and again after a failed launch only', () => {
    const never = seedLedger({ generations: 3, seed: 3 });
    const launched = seedLedger({ generations: 3, seed: 3, lastChampionPackage: 'launched' });
    const failed = seedLedger({ generations: 3, seed: 3, lastChampionPackage: 'launch_failed' });
    const config = configFor({ generations: 3 });
    expect(carryFromLedger(never.rows, config, STARTED)?.unpackaged.map(key)).toEqual([never.expected.champion]);
    expect(carryFromLedger(launched.rows, config, STARTED)?.unpackaged).toEqual([]);
    expect(carryFromLedger(failed.rows, config, STARTED)?.unpackaged.map(key)).toEqual([failed.expected.champion]);
    // A loop without a package command packages nothing.
    expect(
      carryFromLedger(never.rows, { ...config, commands: { ...config.commands, package: null } }, STARTED)?.unpackaged,
    ).toEqual([]);
  });

  it('a ledger without a generation row carries nothing', () => {
    expect(carryFromLedger([], configFor({ generations: 1 }), STARTED)).toBeNull();
  });

  it('band-decision ledgers fold on decided counts: the same rows read in default mode can crown another champion', () => {
    const { rows, expected } = seedLedger({ generations: 3, seed: 4, bandDecisions: true });
    const band = carryFromLedger(rows, configFor({ generations: 3, bandDecisions: true }), STARTED);
    expect(key(band?.state.champion ?? null)).toBe(expected.champion);
    // Evals without a decided block do not count in band mode.
    const current = rows.filter(
      (row) => row.type === 'eval' && row.generation === 3 && row.role === 'test' && row.status === 'ok',
    );
    expect(band?.state.testEvals).toBe(current.filter((row) => row.type === 'eval' && row.decided !== null).length);
  });
});

describe('the teacher plan carried from a ledger', () => {
  it('a generation past its teacher round with a teacher row never builds again', () => {
    const options: SeedLedgerOptions = { generations: 3, seed: 9, teacherAfterRound: 2, rounds: 3 };
    const { rows, expected } = seedLedger(options);
    expect(expected.teacherBuilt).toBe(true);
    const carry = carryFromLedger(rows, configFor(options), STARTED);
    expect(carry?.teacher.offered).toBe(true);
    expect(carry?.teacher.planned).toBe(expected.teacherPlanned);
    expect(carry?.teacher.members.map((member) => member.run_id)).toEqual(expected.teacherMembers);
    expect(carry && teacherDue(carry.teacher, carry.round, 2)).toBe(false);
    // Its member ensemble was scored (generation 3's build succeeded): nothing left to score of it.
    expect(carry?.teacherEnsemble).toBeNull();
  });

  it('a generation before its teacher round keeps its runs as members; the build comes once the round is reached', () => {
    const options: SeedLedgerOptions = { generations: 2, seed: 10, teacherAfterRound: 5, rounds: 3 };
    const { rows, expected } = seedLedger(options);
    expect(expected.teacherBuilt).toBe(false);
    const carry = carryFromLedger(rows, configFor(options), STARTED);
    expect(carry?.teacher).toEqual({
      pending: [],
      planned: expected.teacherPlanned,
      members: expect.any(Array) as unknown,
      offered: false,
    });
    expect(carry?.teacher.members.map((member) => member.run_id)).toEqual(expected.teacherMembers);
    expect(carry && teacherDue(carry.teacher, carry.round, 5)).toBe(false);
    expect(carry && teacherDue(carry.teacher, 5, 5)).toBe(true);
  });

  it('a generation at its teacher round with every run recorded and no teacher row builds (the seed stopped before the build)', () => {
    const options: SeedLedgerOptions = { generations: 2, seed: 11, teacherAfterRound: 2, rounds: 2 };
    const { rows } = seedLedger(options);
    const withoutBuild = rows.filter(
      (row) =>
        !(row.type === 'teacher' && row.generation === 2) &&
        !(row.type === 'run' && row.run_id === 'ens-g002-teacher') &&
        !(row.type === 'eval' && row.run_id === 'ens-g002-teacher'),
    );
    const carry = carryFromLedger(withoutBuild, configFor(options), STARTED);
    expect(carry && teacherDue(carry.teacher, carry.round, 2)).toBe(true);
  });

  it('a successful build whose member ensemble has no run row yet leaves that ensemble due', () => {
    const options: SeedLedgerOptions = { generations: 3, seed: 12, teacherAfterRound: 1, rounds: 2, runsRoot: '/runs' };
    const { rows } = seedLedger(options);
    const build = rows.find((row) => row.type === 'teacher' && row.generation === 3);
    expect(build?.type === 'teacher' && build.status).toBe('ok');
    const withoutEnsemble = rows.filter(
      (row) => !((row.type === 'run' || row.type === 'eval') && row.run_id === 'ens-g003-teacher'),
    );
    const config = configFor(options);
    const carried = teacherFromLedger(withoutEnsemble, 3, config);
    const members = build?.type === 'teacher' ? build.members : [];
    expect(carried.teacherEnsemble).toEqual(
      members.map((member) => ({
        config: (rows.find((row) => row.type === 'run' && row.run_id === member.run_id) as { config_path: string })
          .config_path,
        checkpoint: `/runs/${member.run_id}/${member.checkpoint_name}`,
      })),
    );
    expect(teacherFromLedger(rows, 3, config).teacherEnsemble).toBeNull();
  });

  it('no teacher round configured: the empty plan', () => {
    const { rows } = seedLedger({ generations: 2, seed: 13, teacherAfterRound: 1 });
    expect(teacherFromLedger(rows, 2, configFor({ generations: 2 }))).toEqual({
      teacher: { pending: [], planned: 0, members: [], offered: false },
      teacherEnsemble: null,
    });
  });
});

describe('the round-ensemble pool of a carried generation (issue 23)', () => {
  const selectedOf = (rows: readonly LedgerRow[], auc: (runId: string) => number | null) =>
    new Map(
      rows
        .filter((row) => row.type === 'run' && row.status === 'trained')
        .map((row) => [
          row.type === 'run' ? row.run_id : '',
          {
            checkpoint: 'checkpoint-0002.pt',
            falseNegatives: 3,
            validationGateAuc: auc(row.type === 'run' ? row.run_id : ''),
          },
        ]),
    );

  it.each([
    { generations: 1, rounds: 5, seed: 11 },
    { generations: 2, rounds: 4, seed: 12 },
    { generations: 1, rounds: 2, seed: 13 },
  ] satisfies SeedLedgerOptions[])(
    "holds the generation's trained runs with a selection, best first; the newest round stays open when its ensemble has no row: %j",
    (options) => {
      const { rows, expected } = seedLedger(options);
      const config = configFor(options);
      const generation = expected.generation;
      // AUCs that rank runs by their id's hash, so the order is no accident of the ledger's.
      const auc = (runId: string) => ((runId.length * 7919 + runId.charCodeAt(runId.length - 1)) % 97) / 100;
      const selected = selectedOf(rows, auc);
      const pool = roundEnsemblesFromLedger(rows, generation, config, selected);
      const trained = rows.filter(
        (row): row is Extract<LedgerRow, { type: 'run' }> =>
          row.type === 'run' && row.generation === generation && row.status === 'trained',
      );
      const last = Math.max(0, ...trained.map((row) => row.round));
      const lastScored = rows.some((row) => row.type === 'run' && row.run_id === roundEnsembleRunId(generation, last));
      const open = last >= ROUND_ENSEMBLE_FROM && !lastScored;
      const folded = trained.filter((row) => !open || row.round < last);
      expect(pool.pool.length).toBe(Math.min(ROUND_ENSEMBLE_MAX, folded.length));
      for (const member of pool.pool) {
        expect(folded.map((row) => row.run_id)).toContain(member.run_id);
        expect(member.checkpoint).toBe(`${config.runs_root}/${member.run_id}/checkpoint-0002.pt`);
        expect(member.validation_gate_auc).toBe(auc(member.run_id));
      }
      // Best first, by the seed's ranking.
      expect(pool.pool).toEqual(rankMembers(pool.pool));
      expect(Object.keys(pool.recent)).toEqual(open ? [String(last)] : []);
      if (open)
        expect(pool.recent[String(last)]?.map((m) => m.run_id).sort()).toEqual(
          trained
            .filter((row) => row.round === last)
            .map((row) => row.run_id)
            .sort(),
        );
      // The carry holds it; a run whose directory has no selection is no member.
      const carry = carryFromLedger(rows, config, STARTED, selected);
      expect(carry?.roundEnsembles).toEqual(pool);
      const without = new Map([...selected].slice(1));
      const fewer = roundEnsemblesFromLedger(rows, generation, config, without);
      const missing = [...selected.keys()][0];
      expect([...fewer.pool, ...Object.values(fewer.recent).flat()].some((m) => m.run_id === missing)).toBe(false);
    },
  );
});
