import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { runIdFor } from '../../src/rules/ids.js';
import {
  BOUNDED_CANDIDATES,
  expectSameLedger,
  laneFaultLoop,
  runBounded,
  type BoundedLoop,
} from '../helpers/bounded-loop.js';
import { loseLaneWhile, type LaneFault } from '../helpers/lane-faults.js';
import { createProcessLoop, type ProcessLoop } from '../helpers/process-loop.js';

// Real faults in real processes: the lanes are `champion-loop worker gpu --cpu` processes, killed
// with SIGKILL or stopped with SIGTERM while a training subprocess runs on them.
const ROUNDS = 3;
/** The run the faults hit: slow enough (1 s per epoch) to be caught in the middle of a step. */
const TARGET = runIdFor(1, 2, 'a');

describe('a lane worker lost while it trains', () => {
  let loop: ProcessLoop;
  let baseline: BoundedLoop;

  beforeAll(async () => {
    loop = await createProcessLoop(laneFaultLoop(ROUNDS, TARGET));
    // The same loop, left alone, on the same workers.
    baseline = await runBounded(loop, 'undisturbed', { rounds: ROUNDS });
  }, 240_000);

  afterAll(async () => {
    await loop?.dispose();
  });

  const describeFault = (fault: LaneFault) =>
    `the step's process group gone ${fault.groupGoneMs} ms after the signal; ${TARGET} running again on ${fault.movedTo} (not ${fault.lane}) after ${fault.movedMs} ms`;

  it('kill -9 of a lane worker takes its training subprocess group down; the job runs again on another lane and the loop records every run once', async () => {
    const faults: LaneFault[] = [];
    const disturbed = await runBounded(loop, 'lane-kill', {
      rounds: ROUNDS,
      during: async () => {
        faults.push(await loseLaneWhile(loop, 'lane-kill', TARGET, 'SIGKILL'));
      },
    });
    const compared = expectSameLedger(disturbed, baseline);
    console.log(`lane kill -9: ${faults.map(describeFault).join('; ')}`);
    console.log(`lane kill -9: ${faults.length} fault injected, ${compared} rows compared`);
  });

  it('kill -9 of a lane worker while it evaluates a trained run: only the evaluation runs again elsewhere, and the run still joins the round ensembles', async () => {
    // The same loop, with a's evaluations slow enough to be caught (a knob that changes no result).
    const candidates = path.join(loop.dir, 'slow-eval.candidates.yaml');
    await writeFile(
      candidates,
      stringify({
        candidates: BOUNDED_CANDIDATES.map((c) => ({
          name: c.name,
          base_config: 'configs/base.yaml',
          overrides: { ...c.overrides, ...(c.name === 'a' ? { fixture_eval_sleep_ms: 2_500 } : {}) },
        })),
      }),
    );
    const faults: LaneFault[] = [];
    const disturbed = await runBounded(loop, 'lane-kill-eval', {
      rounds: ROUNDS,
      settings: { candidates },
      during: async () => {
        faults.push(await loseLaneWhile(loop, 'lane-kill-eval', TARGET, 'SIGKILL', 'evaluate'));
      },
    });
    // The round-3 ensemble's result shows its members: the same as the undisturbed loop's only if TARGET joined it.
    const compared = expectSameLedger(disturbed, baseline);
    // Trained once (one run row, one training in its log), evaluated again on the other lane.
    const log = await readFile(
      path.join(loop.configFor('lane-kill-eval').state_dir, 'logs', `${TARGET}.train.log`),
      'utf8',
    );
    expect(log.match(/^--- .* train: /gm)).toHaveLength(1);
    console.log(`lane kill -9 while evaluating: ${faults.map(describeFault).join('; ')}`);
    console.log(`lane kill -9 while evaluating: ${faults.length} fault injected, ${compared} rows compared`);
  });

  it('SIGTERM to a lane worker kills its running subprocess group before the worker exits; the work is retried on another lane', async () => {
    const faults: LaneFault[] = [];
    const disturbed = await runBounded(loop, 'lane-term', {
      rounds: ROUNDS,
      during: async () => {
        faults.push(await loseLaneWhile(loop, 'lane-term', TARGET, 'SIGTERM'));
      },
    });
    const compared = expectSameLedger(disturbed, baseline);
    console.log(`lane SIGTERM: ${faults.map(describeFault).join('; ')}`);
    console.log(`lane SIGTERM: ${faults.length} fault injected, ${compared} rows compared`);
  });
});
