import { createHash } from 'node:crypto';
import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { writeEnsembleManifest } from '../../src/activities/write-ensemble-manifest.js';
import { missingFiles } from '../../src/activities/missing-files.js';
import { buildTeacher } from '../../src/activities/build-teacher.js';
import { withStepScope } from '../../src/activities/support/step-scope.js';
import { trainRun } from '../../src/activities/train-run.js';
import type { TeacherMember } from '../../src/activities/types.js';
import type { StepCommands } from '../../src/activities/types.js';
import { fixtureCommands, fixtureLoop, preparedTrain } from './fixture-loop.js';

const sha256 = async (file: string) =>
  createHash('sha256')
    .update(await readFile(file))
    .digest('hex');

async function trainedMembers(
  names: string[],
  lineage: Record<string, string> = {},
): Promise<{ paths: Awaited<ReturnType<typeof fixtureLoop>>; members: TeacherMember[] }> {
  const paths = await fixtureLoop();
  const members: TeacherMember[] = [];
  for (const name of names) {
    const input = await preparedTrain(paths, name, { fixture_quality: 0.5 + members.length / 10, ...lineage });
    const outcome = await trainRun(input);
    expect(outcome.status).toBe('trained');
    members.push({ run_id: input.runId, config_path: input.configPath, config_sha256: await sha256(input.configPath) });
  }
  return { paths, members };
}

/** The fixture commands with an evaluate that records each command line (JSON, one a line) before it runs. */
async function recordingEvaluate(
  workdir: string,
): Promise<{ commands: StepCommands; calls: () => Promise<string[][]> }> {
  const record = join(workdir, 'evaluate-calls.jsonl');
  const wrapper = join(workdir, 'record-evaluate.mjs');
  const [node, script] = fixtureCommands.evaluate as [string, string];
  await writeFile(
    wrapper,
    [
      "import { appendFileSync } from 'node:fs';",
      "import { spawnSync } from 'node:child_process';",
      `appendFileSync(${JSON.stringify(record)}, JSON.stringify(process.argv.slice(2)) + '\\n');`,
      `const child = spawnSync(${JSON.stringify(node)}, [${JSON.stringify(script)}, ...process.argv.slice(2)], { stdio: 'inherit' });`,
      'process.exit(child.status ?? 1);',
      '',
    ].join('\n'),
  );
  return {
    commands: { ...fixtureCommands, evaluate: [node, wrapper] },
    calls: async () =>
      (await readFile(record, 'utf8'))
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as string[]),
  };
}

const flag = (argv: string[], name: string): string | undefined => {
  const at = argv.indexOf(name);
  return at < 0 ? undefined : argv[at + 1];
};

describe('buildTeacher', () => {
  it("scores each member by default with one single-checkpoint evaluation of its own config (the seed's default)", async () => {
    // One lineage: the opt-in path would share one process; the default never does.
    const { paths, members } = await trainedMembers(['base', 'wide'], {
      data_root: 'data',
      cache_inventory: 'data/dataset.json',
    });
    const { commands, calls } = await recordingEvaluate(paths.workdir);
    const teacherPath = join(paths.workdir, 'artifacts', 'teachers', 'gen-001', 'insample.jsonl');
    const outcome = await buildTeacher({ paths, commands, generation: 1, teacherPath, members });
    expect(outcome.status).toBe('ok');
    expect(outcome.sha256).toBe(await sha256(teacherPath));
    const argvs = await calls();
    expect(argvs).toHaveLength(2);
    for (const [index, member] of members.entries()) {
      const argv = argvs[index] as string[];
      expect(argv).not.toContain('--jobs');
      expect(flag(argv, '--config')).toBe(member.config_path);
      expect(flag(argv, '--role')).toBe('development');
      expect(flag(argv, '--checkpoint')).toBe(outcome.members[index]?.checkpoint);
      expect(flag(argv, '--output')).toBe(join(dirname(teacherPath), 'members', `${member.run_id}.dev.json`));
      expect(flag(argv, '--scores-output')).toBe(
        join(dirname(teacherPath), 'members', `${member.run_id}.dev.scores.jsonl`),
      );
    }
    // One log per member; no jobs file.
    const logs = await readdir(join(paths.stateDir, 'logs'));
    expect(logs.filter((name) => name.startsWith('teacher-g001.development.')).sort()).toEqual(
      members.map((member) => `teacher-g001.development.${member.run_id}.log`).sort(),
    );
    // A retry reuses the members' finished reports: no evaluation runs again.
    await buildTeacher({ paths, commands, generation: 1, teacherPath: `${teacherPath}.again`, members });
    expect(await calls()).toHaveLength(2);
  });

  it('fails a default build naming the member whose evaluation failed, and builds no teacher file', async () => {
    const { paths, members } = await trainedMembers(['base']);
    const teacherPath = join(paths.workdir, 'teacher.jsonl');
    const outcome = await buildTeacher({
      paths,
      commands: { ...fixtureCommands, evaluate: [process.execPath, '-e', 'process.exit(3)', '--'] },
      generation: 1,
      teacherPath,
      members,
    });
    expect(outcome.status).toBe('failed');
    expect(outcome.error).toContain(`development scoring of ${members[0]!.run_id} ended with exit code 3`);
    expect(await missingFiles({ files: [teacherPath] })).toEqual([teacherPath]);
  });

  it("opted in (reuse_teacher_preparation), averages the members' development margins into the teacher file and records its sha256", async () => {
    const { paths, members } = await trainedMembers(['base', 'wide'], {
      data_root: 'data',
      cache_inventory: 'data/dataset.json',
    });
    const teacherPath = join(paths.workdir, 'artifacts', 'teachers', 'gen-001', 'insample.jsonl');
    const { commands, calls } = await recordingEvaluate(paths.workdir);
    const outcome = await buildTeacher({
      paths,
      commands,
      generation: 1,
      teacherPath,
      members,
      reuseTeacherPreparation: true,
    });
    expect(outcome.status).toBe('ok');
    const argvs = await calls();
    expect(argvs).toHaveLength(1);
    expect(flag(argvs[0] as string[], '--jobs')).toBe(
      join(paths.stateDir, 'logs', 'teacher-g001.development.compatible-0000.jobs.json'),
    );
    expect(outcome.sha256).toBe(await sha256(teacherPath));
    expect(outcome.members.map((member) => member.run_id)).toEqual(members.map((member) => member.run_id));
    const lines = (await readFile(teacherPath, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: string; margin: number });
    expect(lines.length).toBeGreaterThan(0);
    expect(Number.isFinite(lines[0]?.margin)).toBe(true);
    // Members of one lineage (same data root, split and cache inventory) share one evaluator process.
    const jobs = JSON.parse(
      await readFile(join(paths.stateDir, 'logs', 'teacher-g001.development.compatible-0000.jobs.json'), 'utf8'),
    ) as unknown[];
    expect(jobs).toHaveLength(2);
  });

  it('opted in, scores members whose configs name no lineage in one evaluator process each', async () => {
    const { paths, members } = await trainedMembers(['base', 'wide']);
    const outcome = await buildTeacher({
      paths,
      commands: fixtureCommands,
      generation: 1,
      teacherPath: join(paths.workdir, 't.jsonl'),
      members,
      reuseTeacherPreparation: true,
    });
    expect(outcome.status).toBe('ok');
    for (const index of ['0000', '0001']) {
      const jobs = JSON.parse(
        await readFile(join(paths.stateDir, 'logs', `teacher-g001.development.compatible-${index}.jobs.json`), 'utf8'),
      ) as unknown[];
      expect(jobs).toHaveLength(1);
    }
  });

  it('fails, naming the file, when a member config changed since training', async () => {
    const { paths, members } = await trainedMembers(['base']);
    await writeFile(members[0]!.config_path, `${await readFile(members[0]!.config_path, 'utf8')}extra: 1\n`);
    const teacherPath = join(paths.workdir, 'teacher.jsonl');
    const outcome = await buildTeacher({ paths, commands: fixtureCommands, generation: 1, teacherPath, members });
    expect(outcome.status).toBe('failed');
    expect(outcome.error).toMatch(/changed since .* trained/);
    expect(await missingFiles({ files: [teacherPath] })).toEqual([teacherPath]);
  });

  it('records a failing teacher-scores command as a failed build and leaves no teacher file', async () => {
    const { paths, members } = await trainedMembers(['base']);
    const teacherPath = join(paths.workdir, 'teacher.jsonl');
    const outcome = await buildTeacher({
      paths,
      commands: { ...fixtureCommands, teacher_scores: [process.execPath, '-e', 'process.exit(4)', '--'] },
      generation: 1,
      teacherPath,
      members,
    });
    expect(outcome).toMatchObject({ status: 'failed', error: expect.stringContaining('exit code 4') as unknown });
    expect(await missingFiles({ files: [teacherPath] })).toEqual([teacherPath]);
  });
});

describe('writeEnsembleManifest', () => {
  /** A member whose job config and checkpoint are there. */
  async function memberFiles(workdir: string, run: string) {
    const member = {
      config: join(workdir, `${run}.yaml`),
      checkpoint: join(workdir, 'runs', run, 'checkpoint-0001.pt'),
    };
    await mkdir(dirname(member.checkpoint), { recursive: true });
    await writeFile(member.config, 'seed: 1\n');
    await writeFile(member.checkpoint, '{}');
    return member;
  }

  it('writes the manifest once and reuses it on a retry', async () => {
    const paths = await fixtureLoop();
    const members = [await memberFiles(paths.workdir, 'a')];
    const first = await writeEnsembleManifest({ paths, generation: 2, name: 'round-0003-all.json', members });
    expect(first.path).toBe(join(paths.stateDir, 'ensembles', 'gen-002', 'round-0003-all.json'));
    expect(JSON.parse(await readFile(first.path, 'utf8'))).toEqual({ members });
    expect(first).not.toHaveProperty('left_out');
    const again = await writeEnsembleManifest({ paths, generation: 2, name: 'round-0003-all.json', members: [] });
    expect(again).toEqual(first);
  });

  it('leaves out a member whose job config is gone (an emptied state dir), and says which and why', async () => {
    const paths = await fixtureLoop();
    const [kept, gone] = [await memberFiles(paths.workdir, 'a'), await memberFiles(paths.workdir, 'b')];
    await rm(gone.config);
    const written = await writeEnsembleManifest({
      paths,
      generation: 1,
      name: 'round-0003-all.json',
      members: [kept, gone],
    });
    expect(JSON.parse(await readFile(written.path, 'utf8'))).toEqual({ members: [kept] });
    expect(written.left_out).toEqual([
      { ...gone, why: `job config ${gone.config} is gone (was the state dir emptied?)` },
    ]);
  });
});

describe('buildTeacher when its lane stops under it', () => {
  it('ends with the lane stop (the workflow sends it again), never as a failed build; member needs reach each step', async () => {
    const { paths, members } = await trainedMembers(['base', 'wide']);
    // A member evaluation that says what GPU need it was handed; the second one then holds until
    // the lane's stop kills it, so the stop surely lands under it (a fixed 2.5 s once raced the
    // first member's evaluation on a busy box).
    const wrapper = join(paths.workdir, 'slow-evaluate.mjs');
    const [node, script] = fixtureCommands.evaluate as [string, string];
    const seen = join(paths.workdir, 'caps.txt');
    await writeFile(
      wrapper,
      [
        "import { appendFileSync, readFileSync } from 'node:fs';",
        "import { spawnSync } from 'node:child_process';",
        `appendFileSync(${JSON.stringify(seen)}, (process.env.CHAMPION_LOOP_GPU_MEMORY_MIB ?? 'none') + '\\n');`,
        `if (readFileSync(${JSON.stringify(seen)}, 'utf8').trim().split('\\n').length > 1) setInterval(() => {}, 1000);`,
        'else {',
        `  const child = spawnSync(${JSON.stringify(node)}, [${JSON.stringify(script)}, ...process.argv.slice(2)], { stdio: 'inherit' });`,
        '  process.exit(child.status ?? 1);',
        '}',
        '',
      ].join('\n'),
    );
    const commands = { ...fixtureCommands, evaluate: [node, wrapper] };
    const teacherPath = join(paths.workdir, 'artifacts', 'teachers', 'gen-001', 'insample.jsonl');
    const stopping = new AbortController();
    // A lane that admits every step at once, by the need its job's lane terms give it.
    const steps = {
      admit: (_mark: string, need: { mib: number } | undefined) =>
        Promise.resolve({ needMiB: need?.mib ?? 30 * 1024, slot: 1 }),
      started: () => undefined,
      ended: () => null,
    };
    const [first, second] = members as [TeacherMember, TeacherMember];
    const laneJob = {
      needs: {
        members: { [first.run_id]: { mib: 1111, why: 'first' }, [second.run_id]: { mib: 2222, why: 'second' } },
      },
      oom: { retries: 4 },
    };
    const build = withStepScope({ env: {}, stopping: stopping.signal, steps, job: laneJob }, () =>
      buildTeacher({ paths, commands, generation: 1, teacherPath, members }),
    );
    // The lane stops once the second member's evaluation has started.
    const secondStarted = async (): Promise<void> => {
      while ((await readFile(seen, 'utf8').catch(() => '')).trim().split('\n').length < 2) await sleep(50);
    };
    void secondStarted().then(() =>
      stopping.abort(Object.assign(new Error('lane test.gpu0 stopped (SIGTERM)'), { name: 'LaneStoppedError' })),
    );
    await expect(build).rejects.toMatchObject({ type: 'LaneStoppedError' });
    // The first member ran with its own need; the second was stopped by the lane.
    expect((await readFile(seen, 'utf8')).trim().split('\n')).toEqual(['1111', '2222']);
  });
});
