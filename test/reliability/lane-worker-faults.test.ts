import { access, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { stringify } from 'yaml';
import type { RunRow } from '../../src/ledger/rows.js';
import { runIdFor } from '../../src/rules/ids.js';
import { DRAIN_NOTICE_MS } from '../../src/workers/lane-notices.js';
import {
  BOUNDED_CANDIDATES,
  expectSameLedger,
  laneFaultLoop,
  runBounded,
  type BoundedLoop,
} from '../helpers/bounded-loop.js';
import {
  drainLaneWhile,
  loseLaneAndRestart,
  loseLaneWhile,
  type LaneBack,
  type LaneDrain,
  type LaneFault,
} from '../helpers/lane-faults.js';
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

  it('a lane killed twice under a run and started again at once (preempted, OOM-killed): with retries.train 1 the run trains there all the same, its lost lanes counted apart (lost_lanes 2)', async () => {
    const loopId = 'lane-lost-twice';
    const base = loop.configFor(loopId);
    // One attempt at training: before lost lanes were counted apart, the first kill failed the run.
    // schedule_to_start long enough for the worker to be back, so the run stays on its lane.
    const settings = {
      retries: { ...base.retries, train: 1 },
      timeouts: { ...base.timeouts, schedule_to_start: '2m' as const },
    };
    const faults: LaneBack[] = [];
    const disturbed = await runBounded(loop, loopId, {
      rounds: ROUNDS,
      settings,
      during: async () => {
        faults.push(await loseLaneAndRestart(loop, loopId, TARGET));
        faults.push(await loseLaneAndRestart(loop, loopId, TARGET));
      },
    });
    const target = disturbed.rows.find(
      (row): row is RunRow => row.type === 'run' && row.run_id === TARGET && row.status !== 'ensemble',
    );
    expect(target?.status).toBe('trained');
    expect(target?.lost_lanes).toBe(2);
    expect(faults.map((fault) => fault.lane)).toEqual([faults[0]?.lane, faults[0]?.lane]);
    const compared = expectSameLedger(disturbed, baseline);
    console.log(
      `lane lost twice: ${faults.map((f) => `trainer ${f.killedPid} killed with ${f.lane}, ${f.againPid} training again there after ${f.backMs} ms`).join('; ')}; ${compared} rows compared`,
    );
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

  it('kill -9 of a lane worker after two epochs, with loop.yaml resume_flag: the run resumes on another lane from its newest epoch, no epoch trained twice', async () => {
    const faults: LaneFault[] = [];
    const runDir = path.join(loop.configFor('lane-kill-resume').runs_root, TARGET);
    const disturbed = await runBounded(loop, 'lane-kill-resume', {
      rounds: ROUNDS,
      settings: { resume_flag: '--resume-from' },
      during: async () => {
        const twoEpochs = () =>
          vi.waitFor(() => access(path.join(runDir, 'validation-epoch-0002.json')), { timeout: 60_000, interval: 100 });
        faults.push(await loseLaneWhile(loop, 'lane-kill-resume', TARGET, 'SIGKILL', 'train', twoEpochs));
      },
    });
    // The same runs, checkpoints and evaluations as the loop left alone.
    const compared = expectSameLedger(disturbed, baseline);
    const log = await readFile(
      path.join(loop.configFor('lane-kill-resume').state_dir, 'logs', `${TARGET}.train.log`),
      'utf8',
    );
    const resumed = /^--- \S+ train: resuming \S+ from epoch (\d+) /m.exec(log);
    expect(resumed, log).not.toBeNull();
    const from = Number(resumed?.[1]);
    expect(from).toBeGreaterThanOrEqual(2);
    // Every epoch trained once: up to the resume point by the lost attempt, the rest after it.
    const epochs = [...log.matchAll(/^epoch (\d+)\/(\d+) /gm)].map((match) => Number(match[1]));
    const total = Number(/^epoch \d+\/(\d+) /m.exec(log)?.[1]);
    expect(epochs).toEqual(Array.from({ length: total }, (_, index) => index + 1));
    // Two attempts of the trainer: the lost one and the resumed one.
    expect(log.match(/^--- \S+ train: \[/gm)).toHaveLength(2);
    expect(await readdir(path.dirname(runDir))).not.toContain(`${TARGET}.aside-1`);
    console.log(
      `lane kill -9 with resume: resumed after epoch ${from} of ${total}; ${faults.map(describeFault).join('; ')}`,
    );
    console.log(`lane kill -9 with resume: ${faults.length} fault injected, ${compared} rows compared`);
  });

  it('`worker gpu --drain` drains a lane worker: its running training finishes there, the loop sends it no new job and shows it draining, it exits 0, and started again it is taken back', async () => {
    const drains: LaneDrain[] = [];
    const disturbed = await runBounded(loop, 'lane-drain', {
      rounds: ROUNDS,
      during: async () => {
        drains.push(await drainLaneWhile(loop, 'lane-drain', TARGET));
      },
    });
    const compared = expectSameLedger(disturbed, baseline);
    const [drain] = drains;
    expect(drain?.exit).toEqual({ exitCode: 0, signal: null });
    expect(drain?.output).toContain('SIGUSR2: draining');
    // The command found the worker on this host, waited for it, and said so.
    expect(drain?.command.exitCode).toBe(0);
    expect(drain?.command.output).toMatch(/^draining \S+ \(worker pid \d+\): it takes no new job/m);
    expect(drain?.command.output).toMatch(/ drained: its worker exited after \d+ s$/m);
    // The worker told the loop: status showed the lane draining, and took it back once it was up.
    expect(drain?.shownDraining).toBe(true);
    // Sooner than its last drain notice (3 minutes) runs out: the worker's word, not the notice's end.
    expect(drain?.upAgainMs).toBeLessThan(DRAIN_NOTICE_MS);
    // Only the job it was running was on the lane when the loop knew, and nothing new came until the worker exited.
    expect(drain?.jobsAtNotice).toEqual([TARGET]);
    expect(drain?.jobsAfterNotice).toEqual([]);
    // Trained once, to its end: never stopped, never retried.
    const log = await readFile(
      path.join(loop.configFor('lane-drain').state_dir, 'logs', `${TARGET}.train.log`),
      'utf8',
    );
    expect(log.match(/^--- \S+ train: \[/gm)).toHaveLength(1);
    expect(log).toContain('selected checkpoint-');
    console.log(
      `lane drain: ${drain?.lane} exited ${drain?.drainedMs} ms after worker gpu --drain started; ${compared} rows compared`,
    );
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
