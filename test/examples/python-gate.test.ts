// The Python example stack (examples/python-gate) driven by a real loop: a copy of the folder,
// its own loop.yaml and candidates, two lanes, a dev server. It shows that a stack written for
// the seed (`python -m package.module` with the seed's flags) runs unchanged.
import { createHash } from 'node:crypto';
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stopLoop } from '../../src/client/loop-updates.js';
import { loadLoopConfig } from '../../src/config/load-loop-config.js';
import type { LoopConfig } from '../../src/config/loop-config.js';
import type { LedgerRow } from '../../src/ledger/rows.js';
import { loopWorkflowId } from '../../src/workflows/ids.js';
import { stopSignal } from '../../src/workflows/messages.js';
import { ledgerUntil, processesMentioning, rowsOf, stateOf } from '../helpers/loop-checks.js';
import { createLoopHarness, type LoopHarness } from '../helpers/loop-harness.js';
import { pythonStackUnavailable } from '../helpers/python-stack.js';

const STACK = fileURLToPath(new URL('../../examples/python-gate/', import.meta.url));
const unavailable = pythonStackUnavailable();
if (unavailable !== null) console.warn(unavailable);

async function sha256(path: string): Promise<string> {
  return createHash('sha256')
    .update(await readFile(path))
    .digest('hex');
}

async function readJson<T>(path: string): Promise<T> {
  return JSON.parse(await readFile(path, 'utf8')) as T;
}

describe.skipIf(unavailable !== null)('the python-gate stack under a real loop', () => {
  let harness: LoopHarness;
  let dir = '';
  /** The example's own loop.yaml, loaded from a copy of the folder, on the harness's two lanes. */
  let config: LoopConfig;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'python-gate-'));
    // A copy, so that the loop's files (state dir, runs, teachers) and Python's caches stay out of the repository.
    await cp(STACK, join(dir, 'python-gate'), {
      recursive: true,
      filter: (source) => !/\/(artifacts|__pycache__)(\/|$)/.test(source),
    });
    harness = await createLoopHarness({ candidates: [{ name: 'unused' }], lanes: 2 });
    const loaded = await loadLoopConfig(join(dir, 'python-gate', 'loop.yaml'));
    config = { ...loaded, lanes: harness.config.lanes };
  });

  afterAll(async () => {
    await harness?.dispose();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('runs a loop through a teacher build, a round ensemble, a reserve check and a package', async () => {
    const started = Date.now();
    expect((await harness.startWith('py', config)).kind).toBe('started');
    const ok = (rows: LedgerRow[]) => ({
      teacher: rowsOf(rows, 'teacher').some((row) => row.status === 'ok'),
      roundEnsemble: rowsOf(rows, 'eval').some((row) => row.candidate === 'ensemble_round_members'),
      reserve: rowsOf(rows, 'reserve_check').length > 0,
      packaged: rowsOf(rows, 'package').some((row) => row.event === 'finished'),
      student: rowsOf(rows, 'eval').some((row) => row.candidate === 'student'),
    });
    // About 35 s on two busy cores.
    await ledgerUntil(harness, 'py', (rows) => Object.values(ok(rows)).every(Boolean), 150_000);
    await harness.client.workflow.getHandle(loopWorkflowId('py')).signal(stopSignal);
    const result = await harness.result('py');
    const { rows, state } = await harness.ledger('py');
    const verdicts = rowsOf(rows, 'reserve_check').map((row) => row.verdict);
    console.log(
      `python-gate loop: teacher, round ensemble, reserve check (${verdicts.join(', ')}) and package in ` +
        `${Date.now() - started} ms; ${rowsOf(rows, 'run').length} runs, ${rowsOf(rows, 'eval').length} evals, ` +
        `round ${result.view.round} of generation ${result.view.generation}`,
    );
    expect(stateOf(state)).toEqual(stateOf(result.view));
    const root = join(dir, 'python-gate');
    expect(config.state_dir).toBe(join(root, 'artifacts', 'champion-loop'));

    // Training: every ordinary run trained all its epochs; the job config it read is the one the loop hashed.
    const runs = rowsOf(rows, 'run');
    const trained = runs.filter((row) => row.status === 'trained');
    expect(trained.length).toBeGreaterThanOrEqual(9);
    expect(runs.filter((row) => row.members === undefined).every((row) => row.status === 'trained')).toBe(true);
    for (const run of trained) {
      expect(run).toMatchObject({ train_rc: 0, epochs_run: 4, error: null });
      expect(run.checkpoints.every((name) => /^checkpoint-000[1-4]\.json$/.test(name))).toBe(true);
      expect(await sha256(run.config_path)).toBe(run.config_sha256);
      const checkpoint = await readJson<{ config_sha256: string; seed: number; cuda_visible_devices: string }>(
        join(config.runs_root, run.run_id, run.checkpoints[0] ?? ''),
      );
      expect(checkpoint).toMatchObject({ config_sha256: run.config_sha256, seed: run.seed });
      // The lane's device, as the lane worker sets it for its subprocesses.
      expect(['0', '1']).toContain(checkpoint.cuda_visible_devices);
      const log = await readFile(join(config.state_dir, 'logs', `${run.run_id}.train.log`), 'utf8');
      expect(log).toContain(`CUDA_VISIBLE_DEVICES='${checkpoint.cuda_visible_devices}'`);
    }

    // Test evaluations: one ok row per checkpoint training offered, over the whole test role.
    const split = await readJson<{ roles: Record<string, string[]> }>(join(config.state_dir, 'splits', 'gen-001.yaml'));
    const tests = rowsOf(rows, 'eval').filter((row) => row.role === 'test');
    expect(tests.length).toBeGreaterThan(0);
    for (const row of tests) {
      expect(row.status).toBe('ok');
      expect((row.result?.pass_count ?? 0) + (row.result?.fail_count ?? 0)).toBe(split.roles.test?.length);
      expect(row.gate_auc).toBeGreaterThan(0.8);
      expect(row.decided?.rejected_total).toEqual(expect.any(Number));
    }

    // The teacher: the first round's three runs, each scored on development with its own config.
    const [teacher] = rowsOf(rows, 'teacher');
    expect(teacher).toMatchObject({
      generation: 1,
      status: 'ok',
      path: join(root, 'artifacts/teachers/gen-001/insample.jsonl'),
    });
    expect(teacher?.members.map((member) => member.run_id).sort()).toEqual(
      ['base', 'narrow', 'strict'].map((name) => `champ-g001-r0001-${name}`),
    );
    expect(await sha256(teacher?.path ?? '')).toBe(teacher?.sha256);
    const teacherLines = (await readFile(teacher?.path ?? '', 'utf8')).trim().split('\n');
    expect(teacherLines).toHaveLength(split.roles.development?.length ?? -1);
    for (const member of teacher?.members ?? []) {
      const log = join(config.state_dir, 'logs', `teacher-g001.development.${member.run_id}.log`);
      expect(await readFile(log, 'utf8')).toContain('--checkpoint');
    }
    const teacherEnsemble = rowsOf(rows, 'eval').find((row) => row.run_id === 'ens-g001-teacher');
    expect(teacherEnsemble).toMatchObject({ role: 'test', status: 'ok', checkpoint_name: 'teacher-members.json' });

    // The student trained toward that teacher file.
    const student = trained.find((row) => row.candidate === 'student');
    const studentCheckpoint = await readJson<{ teacher_sha256: string }>(
      join(config.runs_root, student?.run_id ?? '', student?.checkpoints[0] ?? ''),
    );
    expect(studentCheckpoint.teacher_sha256).toBe(teacher?.sha256);

    // A round ensemble (from round 3): scored on test, with its manifest's members.
    const roundEnsemble = rowsOf(rows, 'eval').find((row) => row.candidate === 'ensemble_round_members');
    expect(roundEnsemble).toMatchObject({ role: 'test', status: 'ok' });
    expect(roundEnsemble?.checkpoint_sha256).toBe(await sha256(roundEnsemble?.manifest ?? ''));
    expect((roundEnsemble?.members ?? []).length).toBeGreaterThanOrEqual(2);

    // The reserve check: the champion scored on reserve, and a verdict on it.
    const [check] = rowsOf(rows, 'reserve_check');
    expect(check).toMatchObject({ status: 'ok', compared: 'decided' });
    expect(['pass', 'fail']).toContain(check?.verdict);
    const reserve = rowsOf(rows, 'eval').find((row) => row.role === 'reserve' && row.run_id === check?.run_id);
    expect(reserve).toMatchObject({ status: 'ok', checkpoint_name: check?.checkpoint_name });
    expect((reserve?.result?.pass_count ?? 0) + (reserve?.result?.fail_count ?? 0)).toBe(split.roles.reserve?.length);

    // Packaging: the package command ran to exit 0 and left a package with its provenance.
    const finished = rowsOf(rows, 'package').filter((row) => row.event === 'finished');
    expect(finished[0]).toMatchObject({ exit_code: 0 });
    const packages = await readdir(join(config.state_dir, 'packages'));
    expect(packages.length).toBeGreaterThanOrEqual(1);
    const provenance = await readJson<{ generation: number; sha256: string }>(
      join(config.state_dir, 'packages', packages[0] ?? '', 'provenance.json'),
    );
    expect(provenance.generation).toBe(1);
    expect(rowsOf(rows, 'eval').some((row) => row.checkpoint_sha256 === provenance.sha256)).toBe(true);
  }, 200_000);

  it('leaves no Python process behind when a loop is stopped at once mid-training', async () => {
    const root = join(dir, 'python-gate');
    const candidates = join(root, 'slow-candidates.yaml');
    // Epochs of a minute: the trainers (and their loader processes) are mid-training when stopped.
    await writeFile(
      candidates,
      'candidates:\n' +
        ['a', 'b']
          .map((name) => `  - {name: ${name}, base_config: configs/base.yaml, overrides: {epoch_sleep_s: 60}}\n`)
          .join(''),
    );
    const loopDir = join(dir, 'kill');
    await harness.startWith('kill', {
      ...config,
      candidates,
      state_dir: join(loopDir, 'state'),
      runs_root: join(loopDir, 'runs'),
    });
    const pythons = async () =>
      (await processesMentioning(loopDir)).filter((found) => found.cmdline.includes('pygate.train'));
    // Each trainer and its loader process (a fork, with the trainer's command line).
    await expect
      .poll(async () => (await pythons()).length, {
        timeout: 60_000,
        interval: 250,
        message: 'two trainers, two loaders',
      })
      .toBe(4);
    await stopLoop(harness.client, { loopId: 'kill', now: true });
    const result = await harness.result('kill');
    expect(result.view.in_flight).toEqual([]);
    await expect
      .poll(() => processesMentioning(loopDir), { timeout: 30_000, interval: 250, message: 'no process of the loop' })
      .toEqual([]);
    const { rows } = await harness.ledger('kill');
    expect(rowsOf(rows, 'run')).toEqual([]);
    // Each trainer ran its own SIGTERM handler: it stopped its loader and said so in its log.
    for (const name of ['a', 'b']) {
      const log = await readFile(join(loopDir, 'state', 'logs', `champ-g001-r0001-${name}.train.log`), 'utf8');
      expect(log).toContain('stopped by SIGTERM');
    }
  });
});
