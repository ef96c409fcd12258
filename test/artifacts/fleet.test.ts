// A fleet without a shared disk (docs/artifacts.md): two lane hosts and a package host, each
// with a `loops/` of its own (a private mount namespace and tmpfs, so a read of another host's
// state dir or runs root fails), the orchestrator on this process's disk; nothing shared but
// Temporal, the store, the data and the stack: through rounds, a teacher build and its students,
// the teacher and round ensembles, a reserve check and packages; then the same loop on one box at
// the same paths, whose ledger it must equal. Real dev server, worker processes, fixture stack and
// S3 server (SeaweedFS).
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { blobKey } from '../../src/artifacts/file-store.js';
import { ObjectStore } from '../../src/artifacts/object-store.js';
import { fetchPackage } from '../../src/artifacts/package-store.js';
import { loopWorkflowId } from '../../src/workflows/ids.js';
import { stopSignal } from '../../src/workflows/messages.js';
import type { LedgerRow } from '../../src/ledger/rows.js';
import { evalKey, expectEachRunAndEvalOnce, rowsOf } from '../helpers/loop-checks.js';
import { storeForFile } from '../helpers/object-store.js';
import { createProcessLoop, type ProcessLoop } from '../helpers/process-loop.js';

// The teacher file under `loops/`, so that it too is on each host's own disk.
const TEACHER = 'loops/fleet/teachers/gen-{generation}/insample.jsonl';
const CANDIDATES = [
  { name: 'base' },
  { name: 'wide', overrides: { fixture_quality: 0.7 } },
  { name: 'student', overrides: { gate_soft_targets: TEACHER } },
];

/** The loop.yaml settings of both runs: a teacher after round 2, a reserve check once round 3's ensemble was scored. */
const SETTINGS = {
  saturation_evals: 30,
  max_reserve_checks: 1,
  teacher_after_round: 2,
  teacher_path: TEACHER,
};

/** Stopped once generation 2 planned its first round: generation 1 is whole in both runs. */
async function runUntilGeneration2(loop: ProcessLoop, loopId: string, settings: Record<string, unknown>) {
  await loop.startWith(loopId, { ...SETTINGS, ...settings });
  await loop.waitFor(loopId, (view) => view.generation >= 2 && view.round >= 1, 480_000);
  await loop.client.workflow.getHandle(loopWorkflowId(loopId)).signal(stopSignal);
  await loop.result(loopId);
  return (await loop.ledger(loopId)).rows;
}

/**
 * The rows that name no host and no time, by identity: runs, evaluations, teachers and splits,
 * without their times, the store's `files` and `package_uri`, GPU figures and lost lanes. (Champions,
 * fronts, reserve checks, packages and generations follow from the order evaluations arrive in,
 * which no two runs of two lanes share.)
 */
type Comparable = Map<string, Record<string, unknown>>;

function comparable(rows: readonly LedgerRow[]): Comparable {
  const hostOrTime = new Set([
    'started',
    'finished',
    'time',
    'files',
    'package_uri',
    'gpu_seconds',
    'gpu_peak_mib',
    'gpu_usd',
    'lost_lanes',
  ]);
  const keyOf = (row: LedgerRow): string | null => {
    if (row.type === 'run') return `run ${row.run_id}`;
    if (row.type === 'eval') return `eval ${evalKey(row)}`;
    if (row.type === 'teacher') return `teacher ${row.generation}`;
    if (row.type === 'split') return `split ${row.generation}`;
    return null;
  };
  const out: Comparable = new Map();
  for (const row of rows) {
    const key = keyOf(row);
    if (key === null) continue;
    out.set(key, Object.fromEntries(Object.entries(row).filter(([field]) => !hostOrTime.has(field))));
  }
  return out;
}

describe('a fleet without a shared disk: two lane hosts and a package host, each with a disk of its own', () => {
  let loop: ProcessLoop | undefined;
  // What the fleet recorded, for the one-box run at the same paths to be compared with.
  let fleet: { rows: readonly LedgerRow[]; dir: string } | undefined;
  const fleetStore = storeForFile(async () => loop?.dispose());

  it('trains, scores, builds a teacher, ensembles and checks the reserve on the lanes, packages on its own host, every file another host wrote coming through the store', async () => {
    const loopId = 'fleet';
    loop = await createProcessLoop({ candidates: CANDIDATES, lanes: 2, privateHosts: true });
    const rows = await runUntilGeneration2(loop, loopId, { artifacts: fleetStore.artifacts });
    fleet = { rows, dir: loop.dir };
    expectEachRunAndEvalOnce(rows, 'the fleet');
    const config = loop.configFor(loopId);

    // The orchestrator's host never saw a run directory, an evaluation report or a package: those
    // live on the lanes' and the package host's own disks (gone with their namespaces) and in the store.
    // (The orchestrator claims both folders for the loop with a `.loop-owner` marker: src/config/folder-owners.ts.)
    const here = async (dir: string) =>
      (await readdir(dir).catch(() => [] as string[])).filter((name) => !name.startsWith('.'));
    expect(await here(config.runs_root)).toEqual([]);
    expect(await here(path.join(config.state_dir, 'evals'))).toEqual([]);
    expect(await here(path.join(config.state_dir, 'packages'))).toEqual([]);

    const store = new ObjectStore(fleetStore.artifacts);
    try {
      const stored = async (ref: { sha256: string }) => store.storedSha256(blobKey(store, ref.sha256));
      // Every trained run names its job config, split and checkpoints, each in the store by content.
      const trained = rowsOf(rows, 'run').filter((row) => row.status === 'trained');
      expect(trained.length).toBeGreaterThanOrEqual(4);
      for (const run of trained) {
        const files = run.files ?? [];
        expect(files.map((ref) => ref.path)).toEqual(
          expect.arrayContaining([
            run.config_path,
            ...run.checkpoints.map((name) => path.join(config.runs_root, run.run_id, name)),
          ]),
        );
        expect(files.find((ref) => ref.path === run.config_path)?.sha256).toBe(run.config_sha256);
        for (const ref of files) expect(await stored(ref), ref.path).toBe(ref.sha256);
      }
      // Every ok test eval names its checkpoint (the sha256 its report gave), its report and its scores.
      const evals = rowsOf(rows, 'eval').filter((row) => row.status === 'ok' && row.role === 'test');
      expect(evals.length).toBeGreaterThanOrEqual(trained.length);
      for (const row of evals) {
        const files = row.files ?? [];
        expect(files.find((ref) => ref.path === row.checkpoint)?.sha256).toBe(row.checkpoint_sha256);
        expect(files.map((ref) => ref.path)).toEqual(expect.arrayContaining([row.config_path, row.eval_json]));
        for (const ref of files) expect(await stored(ref), ref.path).toBe(ref.sha256);
      }

      // The round ensemble was scored on a lane from its members' files, the reserve check on one from the champion's.
      const ensembles = rowsOf(rows, 'run').filter((row) => row.status === 'ensemble');
      expect(ensembles.length).toBeGreaterThan(0);
      for (const run of ensembles) {
        expect(run.files?.[0]?.path).toBe(run.config_path);
        expect(rowsOf(rows, 'eval').filter((row) => row.run_id === run.run_id && row.status === 'ok')).not.toEqual([]);
      }
      expect(rowsOf(rows, 'reserve_check').map((row) => row.status)).toEqual(['ok']);

      // The teacher was built on a lane from its members' files; the orchestrator fetched it to see
      // it exists, its students trained on lanes with it (a job input), and its ensemble was scored.
      const teachers = rowsOf(rows, 'teacher');
      expect(teachers.map((row) => row.status)).toEqual(['ok']);
      const teacherFile = teachers[0]?.files?.[0];
      expect(teacherFile?.path).toBe(teachers[0]?.path);
      expect(teacherFile?.sha256).toBe(teachers[0]?.sha256);
      const students = trained.filter((row) => row.candidate === 'student');
      expect(students.length).toBeGreaterThan(0);
      for (const run of students) expect(run.files?.map((ref) => ref.sha256)).toContain(teacherFile?.sha256);
      const teacherEnsemble = ensembles.filter((row) => row.candidate === 'ensemble_teacher_members');
      expect(teacherEnsemble.length).toBe(1);

      // The package host fetched the champion's checkpoint, config and report, and its package is
      // in the store: its provenance names the checkpoint's sha256 as the lane's report gave it.
      const finished = rowsOf(rows, 'package').filter((row) => row.event === 'finished' && row.exit_code === 0);
      expect(finished.length).toBeGreaterThan(0);
      const last = finished.at(-1);
      const champion = evals.find(
        (row) => row.run_id === last?.run_id && row.checkpoint_name === last?.checkpoint_name,
      );
      expect(champion).toBeDefined();
      const out = await mkdtemp(path.join(tmpdir(), 'champion-loop-fleet-package-'));
      try {
        await fetchPackage(store, last?.package_uri ?? '', out);
        const provenance = JSON.parse(await readFile(path.join(out, 'provenance.json'), 'utf8')) as {
          sha256: string;
        };
        expect(provenance.sha256).toBe(champion?.checkpoint_sha256);
      } finally {
        await rm(out, { recursive: true, force: true });
      }
    } finally {
      store.close();
    }
  }, 600_000);

  it('records what a one-box run at the same paths records, in every row that names no host and no time', async () => {
    if (fleet === undefined) throw new Error('the fleet run comes first');
    await loop?.dispose();
    loop = await createProcessLoop({ candidates: CANDIDATES, lanes: 2, dir: fleet.dir });
    const oneBoxRows = await runUntilGeneration2(loop, 'fleet', {});
    const [inFleet, oneBox] = [fleet.rows, oneBoxRows].map(comparable) as [Comparable, Comparable];
    // The advance cuts generation 1's last rounds wherever it lands: a round ensemble it folded
    // early has fewer members in one run, and it with its evaluations is left out (only those).
    const members = (rows: Comparable, runId: unknown) =>
      JSON.stringify(((rows.get(`run ${String(runId)}`)?.members ?? []) as { run_id?: string }[]).map((m) => m.run_id));
    const cut = (row: Record<string, unknown>) =>
      String(row.run_id).startsWith('ens-') && members(inFleet, row.run_id) !== members(oneBox, row.run_id);
    const both = [...inFleet.entries()].filter(([key, row]) => oneBox.has(key) && !cut(row));
    for (const [key, row] of both) expect(oneBox.get(key), key).toEqual(row);
    // Every row of the rounds before the reserve check (the teacher's and its students' included) is in both, the same.
    const early = (rows: Comparable) =>
      [...rows.entries()].filter(([, row]) => row.generation === 1 && Number(row.round ?? 0) <= 3).map(([key]) => key);
    expect(early(oneBox).sort()).toEqual(early(inFleet).sort());
    expect(both.map(([key]) => key)).toEqual(expect.arrayContaining(early(inFleet)));
    expect(early(inFleet).length).toBeGreaterThan(15);
    expect(both.length).toBeGreaterThan(early(inFleet).length);
  }, 600_000);
});
