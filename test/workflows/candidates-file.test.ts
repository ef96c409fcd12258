import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ApplicationFailure, WorkflowFailedError, WorkflowNotFoundError } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { loopWorkflowId } from '../../src/workflows/ids.js';
import { CANDIDATES_INVALID, stopSignal } from '../../src/workflows/messages.js';
import { championLoopCli, rowsOf, stateOf } from '../helpers/loop-checks.js';
import { createLoopHarness, FIXTURE_COMMANDS, type LoopHarness } from '../helpers/loop-harness.js';

// A base config that is not there: the file parses, and the error names file, line, field and candidate.
const BROKEN = 'candidates:\n  - {name: c, base_config: configs/missing.yaml}\n';

describe('the candidates file, re-read every round', () => {
  let harness: LoopHarness;

  beforeAll(async () => {
    harness = await createLoopHarness({ candidates: [{ name: 'a' }, { name: 'b' }] });
  });

  afterAll(async () => {
    await harness?.dispose();
  });

  it('a bad candidates file appearing while the loop runs keeps the previous list and the loop goes on; fixing it clears the error', async () => {
    const file = path.join(harness.dir, 'changing.candidates.yaml');
    await harness.writeCandidates([{ name: 'a' }, { name: 'b' }], file);
    await harness.startWith('changing', { candidates: file, saturation_evals: 1000 });
    await harness.waitFor('changing', (view) => view.round >= 2);

    await writeFile(file, BROKEN);
    const broken = await harness.waitFor('changing', (view) => view.candidates_error !== null);
    expect(broken.candidates_error).toContain(file);
    expect(broken.candidates_error).toContain('candidates.0.base_config');
    expect(broken.candidates).toEqual(['a', 'b']);
    // Rounds go on with the list read before.
    const later = await harness.waitFor('changing', (view) => view.round >= broken.round + 2);
    expect(later.candidates_error).toBe(broken.candidates_error);
    expect(later.candidates).toEqual(['a', 'b']);

    await harness.writeCandidates(
      [{ name: 'a' }, { name: 'b' }, { name: 'c', overrides: { fixture_quality: 0.9 } }],
      file,
    );
    const fixed = await harness.waitFor('changing', (view) => view.candidates_error === null);
    expect(fixed.candidates).toEqual(['a', 'b', 'c']);
    await harness.waitFor('changing', (view) => view.round > fixed.round);
    await harness.client.workflow.getHandle(loopWorkflowId('changing')).signal(stopSignal);
    const result = await harness.result('changing');
    const { rows, state } = await harness.ledger('changing');
    expect(stateOf(state)).toEqual(stateOf(result.view));

    // Training runs only: round ensembles (from round 3) are not candidates.
    const runs = rowsOf(rows, 'run').filter((row) => row.status !== 'ensemble');
    const rounds = [...new Set(runs.map((row) => row.round))].sort((x, y) => x - y);
    // The round planned on a read shows that read's outcome: the broken read's rounds ran a and b,
    // the fixed read's run c too. The first round with c comes from the rows: the view may have
    // been seen fixed a round after the read that fixed it.
    const firstWithC = Math.min(...runs.filter((row) => row.candidate === 'c').map((row) => row.round));
    expect(firstWithC).toBeLessThanOrEqual(fixed.round);
    const keptRounds = rounds.filter((round) => round >= broken.round && round < firstWithC);
    expect(keptRounds.length).toBeGreaterThanOrEqual(2);
    for (const round of keptRounds) {
      expect(
        runs
          .filter((row) => row.round === round)
          .map((row) => row.candidate)
          .sort(),
      ).toEqual(['a', 'b']);
    }
    expect(
      runs
        .filter((row) => row.round === firstWithC)
        .map((row) => row.candidate)
        .sort(),
    ).toEqual(['a', 'b', 'c']);
    expect(runs.every((row) => row.status === 'trained')).toBe(true);
  });

  it('a candidates file invalid at the very first read fails the loop with an error that names it', async () => {
    const file = path.join(harness.dir, 'broken.candidates.yaml');
    await writeFile(file, BROKEN);
    expect((await harness.startWith('broken', { candidates: file })).kind).toBe('started');
    const failure = await harness.result('broken').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    const cause = (failure as WorkflowFailedError).cause;
    expect(cause).toBeInstanceOf(ApplicationFailure);
    expect((cause as ApplicationFailure).type).toBe(CANDIDATES_INVALID);
    expect((cause as ApplicationFailure).nonRetryable).toBe(true);
    expect((cause as ApplicationFailure).message).toContain(`${file}:2:`);
    expect((cause as ApplicationFailure).message).toContain('an existing base config file for candidate "c"');
    expect((cause as ApplicationFailure).message).toContain('Fix the candidates file and start the loop again.');
    // Nothing ran: no run, no split.
    expect(rowsOf((await harness.ledger('broken')).rows, 'run')).toEqual([]);

    // The CLI refuses it before starting anything.
    const dir = path.join(harness.dir, 'cli');
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, 'candidates.yaml'), BROKEN);
    await writeFile(
      path.join(dir, 'loop.yaml'),
      stringify({
        workdir: '..',
        data_root: 'data',
        candidates: 'cli/candidates.yaml',
        lanes: [{ host: 'test', device: 0 }],
        commands: FIXTURE_COMMANDS,
      }),
    );
    const cli = await championLoopCli(harness.server, ['start', 'from-cli', '--config', path.join(dir, 'loop.yaml')]);
    expect(cli.exitCode).toBe(1);
    expect(cli.stderr).toContain(path.join(dir, 'candidates.yaml'));
    expect(cli.stderr).toContain('candidates.0.base_config');
    await expect(harness.client.workflow.getHandle(loopWorkflowId('from-cli')).describe()).rejects.toBeInstanceOf(
      WorkflowNotFoundError,
    );
  });
});
