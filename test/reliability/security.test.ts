import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parse } from 'yaml';
import { WORKER_SECRETS } from '../../src/activities/support/subprocess.js';
import { runIdFor } from '../../src/rules/ids.js';
import { loopWorkflowId } from '../../src/workflows/ids.js';
import { stopSignal } from '../../src/workflows/messages.js';
import { copyCaughtUp } from '../helpers/bounded-loop.js';
import { processesMentioning, rowsOf, stateOf } from '../helpers/loop-checks.js';
import { createLoopHarness, FIXTURE_COMMANDS, type LoopHarness } from '../helpers/loop-harness.js';
import { startWorkerProcess } from '../helpers/worker-processes.js';

// No shell between config and subprocess; nothing written outside the loop's state dir, runs root
// and teacher folder, however names in candidates.yaml or files of the training stack try; no
// Temporal credential reaches a subprocess or a log.

const SHELL_TRICKS = [
  '$(touch pwned-dollar)',
  '`touch pwned-backtick`',
  '; rm -rf victim',
  '| touch pwned-pipe',
  '&& touch pwned-and',
  "' ; touch pwned-quote '",
];
const SECRET = 'sk-test-SECRET-7d1f';

/** Every file under `dir`, relative to it. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)));
}

describe('security: no shell, no path outside the loop, no secret in a log', () => {
  let harness: LoopHarness;

  beforeAll(async () => {
    harness = await createLoopHarness({
      candidates: [{ name: 'a' }],
      loop: { teacher_after_round: 1, saturation_evals: 1000 },
    });
  });

  afterAll(async () => {
    delete process.env.TEMPORAL_API_KEY;
    await harness?.dispose();
  });

  it('shell syntax in overrides, command arguments and variables is passed on as plain text; nothing is written outside the state dir, runs root and teacher folder', async () => {
    const workdir = harness.dir;
    await mkdir(path.join(workdir, 'victim'), { recursive: true });
    await writeFile(path.join(workdir, 'victim', 'keep.txt'), 'still here\n');
    const candidates = path.join(workdir, 'tricks.candidates.yaml');
    const overrides = Object.fromEntries(SHELL_TRICKS.map((trick, index) => [`note_${index}`, trick]));
    await harness.writeCandidates(
      [
        { name: 'a', overrides: { fixture_quality: 0.3, ...overrides } },
        { name: 'b', overrides: { fixture_quality: 0.7 } },
        { name: 'student', overrides: { gate_soft_targets: 'artifacts/teachers/gen-{generation}/insample.jsonl' } },
      ],
      candidates,
    );
    // Through `env`, a shell metacharacter in an argument would be the shell's only if there were one.
    const tricks = SHELL_TRICKS.map((trick, index) => `TRICK_${index}=${trick}`);
    const commands = {
      ...harness.config.commands,
      train: ['env', ...tricks, ...FIXTURE_COMMANDS.train],
      evaluate: ['env', ...tricks, ...FIXTURE_COMMANDS.evaluate],
      package: ['env', ...tricks, ...FIXTURE_COMMANDS.package],
    };
    const before = new Set(await filesUnder(workdir));
    await harness.startWith('tricks', { candidates, commands });
    await harness.waitFor('tricks', (view) => view.round >= 4, 120_000);
    // A candidates file appearing with names that try to leave the state dir and runs root: refused, the previous list kept.
    await writeFile(
      candidates,
      'candidates:\n  - {name: a, base_config: configs/base.yaml}\n  - {name: ../escape, base_config: configs/base.yaml}\n  - {name: b/c, base_config: configs/base.yaml}\n',
    );
    const refused = await harness.waitFor('tricks', (view) => view.candidates_error !== null);
    expect(refused.candidates_error).toContain('candidates.1.name');
    expect(refused.candidates_error).toContain('safe file name');
    expect(refused.candidates).toEqual(['a', 'b', 'student']);
    await harness.waitFor('tricks', (view) => view.round >= refused.round + 1);
    await harness.client.workflow.getHandle(loopWorkflowId('tricks')).signal(stopSignal);
    const result = await harness.result('tricks');
    const { rows, state } = await harness.ledger('tricks');
    expect(stateOf(state)).toEqual(stateOf(result.view));

    // Nothing ran a shell: no file a trick would have made, the victim untouched, the runs trained.
    const after = await filesUnder(workdir);
    expect(after.filter((file) => path.basename(file).startsWith('pwned'))).toEqual([]);
    expect(await readFile(path.join(workdir, 'victim', 'keep.txt'), 'utf8')).toBe('still here\n');
    expect(
      rowsOf(rows, 'run')
        .filter((run) => run.candidate === 'a')
        .every((run) => run.status === 'trained'),
    ).toBe(true);
    expect(rowsOf(rows, 'teacher').map((row) => row.status)).toEqual(['ok']);
    expect(rowsOf(rows, 'run').some((run) => run.candidate === 'student' && run.status === 'trained')).toBe(true);
    // The overrides reached the trainer's config as the very text written.
    const config = parse(
      await readFile(rowsOf(rows, 'run').find((run) => run.run_id === runIdFor(1, 1, 'a'))?.config_path ?? '', 'utf8'),
    ) as Record<string, unknown>;
    for (const [key, trick] of Object.entries(overrides)) expect(config[key]).toBe(trick);

    // Every file the loop (and its stack) wrote is under the state dir, the runs root or the teacher folder.
    const loop = harness.configFor('tricks', { candidates });
    const roots = [loop.state_dir, loop.runs_root, path.join(workdir, 'artifacts', 'teachers')].map(
      (root) => path.relative(workdir, root) + path.sep,
    );
    const written = after.filter((file) => !before.has(file) && file !== path.relative(workdir, candidates));
    expect(written.length).toBeGreaterThan(20);
    expect(written.filter((file) => !roots.some((root) => file.startsWith(root)))).toEqual([]);
    expect(written.some((file) => file.includes('escape'))).toBe(false);
    console.log(
      `no shell, no escape: ${SHELL_TRICKS.length * 4 + 2} faults injected (${SHELL_TRICKS.length} tricks in overrides, train, evaluate and package commands; 2 unsafe names), ${written.length} written files checked`,
    );
  });

  it("the worker's Temporal API key reaches no subprocess and no log; workers name the kind of security, never the key", async () => {
    process.env.TEMPORAL_API_KEY = SECRET;
    const candidates = path.join(harness.dir, 'secret.candidates.yaml');
    await harness.writeCandidates([{ name: 'slow', overrides: { fixture_sleep_ms: 1_500 } }], candidates);
    try {
      await harness.startWith('secret', { candidates, teacher_after_round: 0 });
      const runsRoot = harness.configFor('secret').runs_root;
      const trainer = await vi.waitFor(
        async () => {
          const found = (await processesMentioning(runsRoot)).find((p) => p.cmdline.includes('train.mjs'));
          if (found === undefined) throw new Error('no trainer');
          return found;
        },
        { timeout: 60_000, interval: 250 },
      );
      const environ = (await readFile(`/proc/${trainer.pid}/environ`, 'utf8')).split('\0');
      for (const name of WORKER_SECRETS) expect(environ.filter((entry) => entry.startsWith(`${name}=`))).toEqual([]);
      expect(environ.join('\n')).not.toContain(SECRET);
      await harness.waitFor('secret', (view) => view.test_evals >= 1);
    } finally {
      delete process.env.TEMPORAL_API_KEY;
    }
    await harness.client.workflow.getHandle(loopWorkflowId('secret')).signal(stopSignal);
    await harness.result('secret');
    const stateDir = harness.configFor('secret').state_dir;
    // The keeper appends the last rows seconds after the loop ends, then replaces state.json by a
    // temp file and a rename in the same pass: a temp file listed can be gone when read (two loaded
    // full runs hit it, the second after waiting for the copy to catch up). A scan in which a
    // listed file vanished is done again: only one that read every file it listed counts.
    await copyCaughtUp(harness, 'secret', stateDir);
    await vi.waitFor(
      async () => {
        for (const file of await filesUnder(stateDir))
          expect(await readFile(path.join(stateDir, file), 'utf8'), file).not.toContain(SECRET);
      },
      { timeout: 10_000, interval: 200 },
    );

    // A worker given the key (plain TLS off, as against a local server that ignores it) says it uses one, and no more.
    const worker = await startWorkerProcess(
      { kind: 'gpu', host: 'secret', device: 7 },
      {
        address: harness.server.address,
        namespace: harness.server.namespace,
        env: { TEMPORAL_API_KEY: SECRET, TEMPORAL_TLS: 'false' },
      },
    );
    worker.signal('SIGTERM');
    await worker.exited;
    expect(worker.output()).toContain(
      `connected to ${harness.server.address} namespace ${harness.server.namespace} (API key)`,
    );
    expect(worker.output()).not.toContain(SECRET);
    console.log(
      `secrets: 2 faults injected (a key in the workers' environment, a worker given a key), ${(await filesUnder(stateDir)).length + 2} logs and outputs checked`,
    );
  });
});
