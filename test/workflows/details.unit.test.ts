import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { loadLoopConfig } from '../../src/config/load-loop-config.js';
import type { LoopConfig } from '../../src/config/loop-config.js';
import { recordRow } from '../../src/ledger/loop-state.js';
import { foldReserveReport } from '../../src/ledger/report-fold.js';
import type { Decided, EvalRow } from '../../src/rules/types.js';
import { newRunJob, reserveJob } from '../../src/workflows/generation/jobs.js';
import { detailsInputOf, renderDetails } from '../../src/workflows/generation/details.js';
import { laneQueue } from '../../src/workflows/queues.js';
import { openGeneration, take, view, type Generation } from '../../src/workflows/generation/state.js';
import { evalRowOf } from '../helpers/eval-rows.js';

// The generation's live page (current details in the Web UI), drawn from a real generation state
// (openGeneration over a loaded loop.yaml) moved by the same folds the workflow runs.

const LANE_0 = laneQueue('box', 0);
const LANE_1 = laneQueue('box', 1);

let dir: string;
let config: LoopConfig;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'champion-loop-details-'));
  await mkdir(path.join(dir, 'data'));
  await writeFile(path.join(dir, 'base.yaml'), 'fixture_epochs: 2\n');
  await writeFile(
    path.join(dir, 'candidates.yaml'),
    stringify({ candidates: [{ name: 'base', base_config: 'base.yaml', overrides: {} }] }),
  );
  await writeFile(
    path.join(dir, 'loop.yaml'),
    stringify({
      data_root: 'data',
      candidates: 'candidates.yaml',
      saturation_evals: 4,
      max_reserve_checks: 2,
      lanes: [
        { host: 'box', device: 0 },
        { host: 'box', device: 1 },
      ],
      commands: { train: ['train'], evaluate: ['evaluate'], split_generate: ['split'], split_carve: ['carve'] },
    }),
  );
  config = await loadLoopConfig(path.join(dir, 'loop.yaml'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A generation 1 just opened, as the workflow's first task opens it. */
function opened(settings: Partial<LoopConfig> = {}): Generation {
  return openGeneration({ loopId: 'page', config: { ...config, ...settings } }, '2026-03-01T10:00:00.000Z');
}

function testEval(
  runId: string,
  epoch: number,
  f2p: number,
  p2f: number,
  role: EvalRow['role'] = 'test',
  decided: Decided | null = null,
): EvalRow {
  return evalRowOf(runId, epoch, f2p, p2f, { role, decided, candidate: 'base', minute: '2026-03-01T10:00' });
}

/** Fold test evals into the generation as a run report would. */
function score(gen: Generation, ...rows: EvalRow[]): void {
  for (const row of rows) gen.state = recordRow(gen.state, row, gen.settings).state;
}

const page = (gen: Generation): string => renderDetails(detailsInputOf(gen));

describe("the generation's current details", () => {
  it('says there is no champion yet and what the lanes do', () => {
    const gen = opened();
    const text = page(gen);
    expect(text).toContain('### Loop `page` · generation 1 · round 0');
    expect(text).toContain('**Champion:** none yet');
    expect(text).toContain('**next reserve check:** after 4 test evals with a champion (0 of 2 done)');
    expect(text).toContain('**Last reserve verdict:** none yet this generation');
    expect(text).toContain('**Now:** Working: 0 jobs running, 0 queued.');
    expect(text).toContain(`- \`${LANE_0}\` 0 of 1 busy: free`);
    expect(text).toContain(`- \`${LANE_1}\` 0 of 1 busy: free`);
  });

  it("shows the champion's two error counts, the front's size and the evals until the reserve check", () => {
    const gen = opened();
    // The second dominates the first; the third trades one count for the other and joins the front.
    score(gen, testEval('champ-g001-r0001-base', 1, 9, 12), testEval('champ-g001-r0001-base', 2, 5, 7));
    score(gen, testEval('champ-g001-r0002-base', 1, 3, 20));
    const text = page(gen);
    expect(text).toContain('**Champion:** `champ-g001-r0001-base` `checkpoint-2.pt`, epoch 2 (candidate `base`)');
    expect(text).toContain('**Counts:** Fail→Pass 5 of 60 · Pass→Fail 7 of 240');
    expect(text).toContain('**Pareto front:** 2 members');
    expect(text).toContain('**Test evals:** 3 · **next reserve check:** in 1 test eval (0 of 2 done)');
    score(gen, testEval('champ-g001-r0002-base', 2, 6, 8));
    expect(page(gen)).toContain('**next reserve check:** due now (0 of 2 done)');
  });

  it("shows the test set's reads, the champion's optimism and what is left of loop.yaml's test budget", () => {
    const plain = opened();
    score(plain, testEval('champ-g001-r0001-base', 1, 9, 12), testEval('champ-g001-r0001-base', 2, 5, 7));
    expect(page(plain)).toMatch(
      /\*\*Test-set reuse:\*\* 2 reads; the champion's counts may be optimistic by selection alone by up to about [\d.]+ \(Fail→Pass\) and [\d.]+ \(Pass→Fail\)/,
    );
    expect(page(plain)).not.toContain('Test budget');
    expect(view(plain)).not.toHaveProperty('test_budget');

    const gen = opened({ test_budget: { reads: 3, when_spent: 'advance' } });
    score(gen, testEval('champ-g001-r0001-base', 1, 9, 12), testEval('champ-g001-r0001-base', 2, 5, 7));
    expect(page(gen)).toContain(
      '**Test budget:** 1 of 3 reads left; when spent, the generation advances (test_budget_spent)',
    );
    expect(view(gen).test_budget).toEqual({ reads: 3, when_spent: 'advance', left: 1 });
    score(gen, testEval('champ-g001-r0002-base', 1, 1, 1));
    const spent = page(gen);
    expect(spent).toContain('**Test budget:** spent (3 reads): the generation advances (test_budget_spent)');
    expect(spent).toContain('**Now:** Advancing to generation 2 (test_budget_spent).');
    // The read that spent it was within the budget: it was judged, and promoted.
    expect(spent).toContain('`champ-g001-r0002-base` `checkpoint-1.pt`');
    expect(view(gen).test_budget).toEqual({ reads: 3, when_spent: 'advance', left: 0 });
  });

  it('compares on the decided block with band decisions', () => {
    const gen = opened({ band_decisions: true });
    const decided: Decided = { fail_to_pass_count: 2, fail_count: 50, pass_to_fail_count: 4, pass_count: 200 };
    score(gen, testEval('champ-g001-r0001-base', 1, 9, 12, 'test', decided));
    expect(page(gen)).toContain('**Counts (after the reject band):** Fail→Pass 2 of 50 · Pass→Fail 4 of 200');
  });

  it('gives the last reserve verdict with its p-values, and a failed one ends the generation', () => {
    const gen = opened();
    const champion = testEval('champ-g001-r0001-base', 1, 5, 7);
    score(gen, champion, ...[2, 3, 4].map((epoch) => testEval('champ-g001-r0001-base', epoch, 9, 12)));
    // Held up: the same counts on reserve.
    take(
      gen,
      foldReserveReport(
        gen.state,
        { champion, testEvals: 4, reserve: testEval('champ-g001-r0001-base', 1, 5, 7, 'reserve') },
        gen.settings,
      ),
    );
    const held = page(gen);
    expect(held).toMatch(
      /\*\*Last reserve verdict:\*\* \*\*pass\*\* for `champ-g001-r0001-base` `checkpoint-1.pt` after 4 test evals \(Fail→Pass p=[\d.e-]+, Pass→Fail p=[\d.e-]+\)/,
    );
    expect(held).toContain('**next reserve check:** in 4 test evals (1 of 2 done)');
    // Far worse on reserve: the verdict fails and the generation advances.
    score(gen, ...[5, 6, 7, 8].map((epoch) => testEval('champ-g001-r0001-base', epoch, 9, 12)));
    take(
      gen,
      foldReserveReport(
        gen.state,
        { champion, testEvals: 8, reserve: testEval('champ-g001-r0001-base', 1, 40, 90, 'reserve') },
        gen.settings,
      ),
    );
    const failed = page(gen);
    expect(failed).toContain('**Last reserve verdict:** **fail** for `champ-g001-r0001-base`');
    expect(failed).toContain('**next reserve check:** none this generation (it is advancing) (2 of 2 done)');
    expect(failed).toContain('**Now:** Advancing to generation 2 (reserve_failed).');
    // After a continue-as-new the run has no row of its own: the verdict follows from the state.
    gen.lastReserve = null;
    expect(page(gen)).toContain('**Last reserve verdict:** **fail** (check 2)');
  });

  it('says why the loop is idle: stopping, paused after failing rounds, split failing, no active candidate', () => {
    const gen = opened();
    gen.inFlight.push({
      job: newRunJob(1, 1, { name: 'base', base_config: 'base.yaml', overrides: {} }),
      lane: LANE_1,
      childId: 'child-1',
      since: '2026-03-01T10:01:02.345Z',
    });
    gen.stopping = true;
    gen.state = { ...gen.state, advanceReason: 'corpus relabelled' };
    expect(page(gen)).toContain(
      '**Now:** Stopping: no new jobs; waiting for 1 running job to finish. The advance (corpus relabelled) waits for the loop to be started again.',
    );
    gen.stopNow = true;
    expect(page(gen)).toContain('**Now:** Stopping at once: cancelling 1 running job.');

    const paused = opened();
    const until = Date.now() + 60_000;
    paused.failing = { reason: 'train exited with 2', since: '2026-03-01T10:00:00.000Z', rounds: 2, until };
    expect(page(paused)).toContain(
      `**Now:** Paused: every run of the last 2 rounds failed: train exited with 2. The next round starts at ${new Date(until).toISOString().slice(0, 19).replace('T', ' ')} UTC`,
    );
    paused.failing = { ...paused.failing, until: 0 };
    expect(page(paused)).toContain('**Failing:** every run of the last 2 rounds failed: train exited with 2');
    expect(page(paused)).toContain('**Now:** Working:');

    const splitting = opened();
    splitting.splitError = 'split_generate exited with 1';
    splitting.idle = true;
    expect(page(splitting)).toContain('**Now:** Split failing, trying again in a minute: split_generate exited with 1');

    const idle = opened();
    idle.idle = true;
    idle.waitingFor = ['teachers/gen-001.jsonl'];
    expect(page(idle)).toContain(
      '**Now:** Idle: no active candidate; waiting for `teachers/gen-001.jsonl` to appear or for the candidates file to change.',
    );
  });

  it('lists what each lane runs, and a lane that is down', () => {
    const gen = opened();
    const champion = testEval('champ-g001-r0001-base', 1, 5, 7);
    score(gen, champion);
    gen.inFlight.push(
      {
        job: newRunJob(1, 2, { name: 'wide', base_config: 'base.yaml', overrides: { width: 2 } }),
        lane: LANE_0,
        childId: 'child-a',
        since: '2026-03-01T10:01:02.345Z',
      },
      { job: reserveJob(gen.state, champion), lane: LANE_1, childId: 'child-b', since: '2026-03-01T10:02:03Z' },
    );
    gen.queue.push(newRunJob(1, 2, { name: 'base', base_config: 'base.yaml', overrides: {} }));
    gen.lanesDownUntil[LANE_1] = Date.parse('2999-01-01T00:00:00Z');
    const text = page(gen);
    expect(text).toContain('**Lanes** (2 jobs running, 1 queued):');
    expect(text).toContain(
      `- \`${LANE_0}\` 1 of 1 busy: train + evaluate \`champ-g001-r0002-wide\` (since 2026-03-01 10:01:02 UTC)`,
    );
    expect(text).toContain(
      `- \`${LANE_1}\` 1 of 1 busy · unavailable until 2999-01-01 00:00:00 UTC: reserve check of \`champ-g001-r0001-base\` \`checkpoint-1.pt\` (since 2026-03-01 10:02:03 UTC)`,
    );
  });

  it('shows an invalid candidates file with the list it keeps', () => {
    const gen = opened();
    gen.candidates = [{ name: 'base', base_config: 'base.yaml', overrides: {} }];
    gen.candidatesError = 'candidates[0].name: required';
    expect(page(gen)).toContain('**Candidates file invalid** (keeping base): candidates[0].name: required');
  });
});
