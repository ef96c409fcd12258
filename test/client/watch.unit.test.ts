import { describe, expect, it } from 'vitest';
import { describeNoPoller } from '../../src/client/pollers.js';
import { renderStatus, renderStoppedState } from '../../src/client/render-status.js';
import { laneDevices } from '../../src/client/render-devices.js';
import { loopEvents, renderFrame } from '../../src/client/watch.js';
import type { EvalSummary } from '../../src/rules/types.js';
import type { LoopView, ReserveCheckBrief } from '../../src/workflows/loop-view.js';

const summary = (run: string, checkpoint: string, f2p: number, p2f: number): EvalSummary => ({
  run_id: run,
  candidate: run.split('-').pop() ?? '',
  epoch: Number(/(\d+)\.pt$/.exec(checkpoint)?.[1] ?? 0),
  checkpoint_name: checkpoint,
  checkpoint: `runs/${run}/${checkpoint}`,
  config_path: 'configs/x.yaml',
  eval_json: 'evals/x.json',
  result: {
    fail_to_pass_count: f2p,
    fail_count: 60,
    fail_to_pass_rate: f2p / 60,
    pass_to_fail_count: p2f,
    pass_correct_count: 240 - p2f,
    pass_count: 240,
    pass_to_fail_rate: p2f / 240,
    macro_f1: 0.8,
    s_f1: 0.7,
  },
});

const CHAMPION = summary('champ-g001-r0001-base', 'checkpoint-0002.pt', 6, 12);
const CHALLENGER = summary('champ-g001-r0002-wide', 'checkpoint-0001.pt', 3, 9);

function view(changes: Partial<LoopView> = {}): LoopView {
  return {
    loop_id: 'gate',
    generation: 1,
    split: 'state/splits/gen-001.yaml',
    champion: null,
    pareto_set: [],
    test_evals: 0,
    tests_since_reserve_check: 0,
    reserve_checks: 0,
    advance_reason: null,
    updated: '2026-01-05T08:00:00.000Z',
    round: 1,
    stopping: false,
    split_ready: true,
    queued: 0,
    in_flight: [],
    lanes: [
      { queue: 'champion-loop.box.gpu0', slots: 1, busy: 0, down_until: null },
      { queue: 'champion-loop.box.gpu1', slots: 1, busy: 0, down_until: null },
    ],
    candidates: ['base', 'wide'],
    candidates_error: null,
    split_error: null,
    idle: false,
    ...changes,
  };
}

describe('watch: the events between two looks at a loop', () => {
  it('opens with where the loop is', () => {
    expect(loopEvents(null, view({ generation: 2, round: 5 }))).toEqual(['watching loop gate: generation 2, round 5']);
  });

  it('says nothing when nothing changed', () => {
    expect(loopEvents(view(), view())).toEqual([]);
  });

  it('reports a new round with its candidates', () => {
    expect(loopEvents(view(), view({ round: 2 }))).toEqual(['round 2 started: base, wide']);
  });

  it('reports a new champion with its counts and rates, and the front that changed with it', () => {
    const before = view({ champion: CHAMPION, pareto_set: [CHAMPION] });
    const after = view({ champion: CHALLENGER, pareto_set: [CHALLENGER] });
    expect(loopEvents(before, after)).toEqual([
      'new champion: champ-g001-r0002-wide checkpoint-0001.pt epoch=1 f2p=3/60 (5.00%) p2f=9/240 (3.75%)',
      'Pareto front: 1 member',
    ]);
    expect(loopEvents(after, view({ champion: CHALLENGER, pareto_set: [CHALLENGER, CHAMPION] }))).toEqual([
      'Pareto front: 2 members',
    ]);
  });

  it('reports a reserve check that held up, and the end of the generation it causes', () => {
    const checked = view({ reserve_checks: 1, advance_reason: 'max_reserve_checks' });
    expect(loopEvents(view(), checked)).toEqual([
      'reserve check 1 held up; generation ends (max_reserve_checks)',
      'generation 1 ends: max_reserve_checks',
    ]);
  });

  it('reports a failed reserve check as failed, the end of the generation, then the next generation with its reason', () => {
    // A check with verdict fail counts as a reserve check too (docs/behaviour.md, section 6).
    const failed = view({ reserve_checks: 1, advance_reason: 'reserve_failed' });
    expect(loopEvents(view(), failed)).toEqual([
      'reserve check 1 failed: the champion is significantly worse on the reserve set; generation ends (reserve_failed)',
      'generation 1 ends: reserve_failed',
    ]);
    expect(loopEvents(failed, view({ generation: 2, round: 1 }))).toEqual(['generation 2 opened (reserve_failed)']);
  });

  it('says once when the test budget is spent, and what follows', () => {
    const budget = (left: number, when_spent: 'freeze' | 'advance' = 'freeze') => ({ reads: 20, when_spent, left });
    expect(loopEvents(view({ test_budget: budget(1) }), view({ test_budget: budget(0) }))).toEqual([
      'test budget spent (20 reads): no promotion until the next generation',
    ]);
    expect(loopEvents(view({ test_budget: budget(0) }), view({ test_budget: budget(0) }))).toEqual([]);
    expect(loopEvents(view({ test_budget: budget(1) }), view({ test_budget: budget(3) }))).toEqual([]);
    expect(
      loopEvents(
        view({ test_budget: budget(1, 'advance') }),
        view({ test_budget: budget(0, 'advance'), advance_reason: 'test_budget_spent' }),
      ),
    ).toEqual(['test budget spent (20 reads): the generation advances', 'generation 1 ends: test_budget_spent']);
  });

  it('reports a broken candidates file and a failing split once each', () => {
    const broken = view({ candidates_error: 'candidates.yaml: candidates.0.name: required' });
    expect(loopEvents(view(), broken)).toEqual([
      'candidates file invalid, keeping the previous list: candidates.yaml: candidates.0.name: required',
    ]);
    expect(loopEvents(broken, broken)).toEqual([]);
    expect(loopEvents(view(), view({ split_error: 'split-generate exited 3' }))).toEqual([
      'split failing: split-generate exited 3',
    ]);
  });
});

describe('watch: every reserve check and why each generation opened', () => {
  const check = (changes: Partial<ReserveCheckBrief> = {}): ReserveCheckBrief => ({
    generation: 1,
    run_id: 'champ-g001-r0002-wide',
    checkpoint_name: 'checkpoint-0001.pt',
    status: 'ok',
    verdict: 'pass',
    stale: false,
    f2p_p: 0.034,
    p2f_p: 0.41,
    alpha: 0.01,
    ends: null,
    ...changes,
  });

  it('prints the reserve check that ended a generation, seen only after the next one opened, then why it opened', () => {
    const before = view({
      reserve_checks: 1,
      reserve_checks_seen: 1,
      last_reserve_check: check(),
      opened_by: 'initial',
    });
    const after = view({
      generation: 2,
      reserve_checks_seen: 2,
      last_reserve_check: check({ verdict: 'fail', f2p_p: 0.0022, p2f_p: 0.3676, ends: 'reserve_failed' }),
      opened_by: 'reserve_failed',
    });
    expect(loopEvents(before, after)).toEqual([
      'reserve check of generation 1 champ-g001-r0002-wide checkpoint-0001.pt failed: the champion is significantly worse on the reserve set (Fail->Pass p=0.0022, Pass->Fail p=0.3676, alpha 0.01); generation 1 ends (reserve_failed)',
      'generation 2 opened (reserve_failed)',
    ]);
  });

  it('prints a check that held up with its p-values and alpha, once, and the end it causes once', () => {
    const before = view({ reserve_checks_seen: 0, last_reserve_check: null });
    const held = view({ reserve_checks: 1, reserve_checks_seen: 1, last_reserve_check: check() });
    expect(loopEvents(before, held)).toEqual([
      'reserve check of generation 1 champ-g001-r0002-wide checkpoint-0001.pt held up (Fail->Pass p=0.0340, Pass->Fail p=0.4100, alpha 0.01)',
    ]);
    expect(loopEvents(held, held)).toEqual([]);
    const last = view({
      reserve_checks: 3,
      reserve_checks_seen: 3,
      advance_reason: 'max_reserve_checks',
      last_reserve_check: check({ ends: 'max_reserve_checks' }),
    });
    expect(loopEvents(held, last)).toEqual([
      '2 reserve checks; the last: reserve check of generation 1 champ-g001-r0002-wide checkpoint-0001.pt held up (Fail->Pass p=0.0340, Pass->Fail p=0.4100, alpha 0.01); generation 1 ends (max_reserve_checks)',
    ]);
    expect(
      loopEvents(
        view({ reserve_checks_seen: 3 }),
        view({ reserve_checks_seen: 4, last_reserve_check: check({ stale: true }) }),
      ),
    ).toEqual([
      'reserve check of generation 1 champ-g001-r0002-wide checkpoint-0001.pt: stale (the champion changed while it ran; changes nothing)',
    ]);
  });

  it('says why a generation opened, whatever the last look saw of the one before', () => {
    expect(loopEvents(view(), view({ generation: 2, opened_by: 'corpus relabelled' }))).toEqual([
      'generation 2 opened (corpus relabelled)',
    ]);
  });
});

describe('band decisions: every surface shows the counts the champion was decided on, the raw ones beside them', () => {
  // The case: decided on (1, 3) after the reject band, while the raw counts (3, 0) would say otherwise.
  const decided = (f2p: number, p2f: number, rejected: number) => ({
    fail_to_pass_count: f2p,
    fail_count: 60,
    pass_to_fail_count: p2f,
    pass_count: 240,
    rejected_total: rejected,
  });
  const NEW = summary('champ-g001-r0002-wide', 'checkpoint-0001.pt', 3, 0);
  const OLD = summary('champ-g001-r0001-base', 'checkpoint-0002.pt', 1, 3);
  const banded = (champion: EvalSummary, counts: ReturnType<typeof decided>, extra: Partial<LoopView> = {}) =>
    view({ champion, pareto_set: [champion], decided: { champion: counts, pareto_set: [counts] }, ...extra });

  it('watch names the decided counts first in a new champion line and in its frame', () => {
    const before = banded(OLD, decided(2, 4, 9));
    const after = banded(NEW, decided(1, 3, 7));
    expect(loopEvents(before, after)[0]).toBe(
      'new champion: champ-g001-r0002-wide checkpoint-0001.pt epoch=1 decided f2p=1/60 p2f=3/240 rejected=7 · raw f2p=3/60 (5.00%) p2f=0/240 (0.00%)',
    );
    expect(renderFrame(after, new Date('2026-01-05T08:01:05.000Z'))[1]).toBe(
      'champion: champ-g001-r0002-wide checkpoint-0001.pt epoch=1 decided f2p=1/60 p2f=3/240 rejected=7 · raw f2p=3/60 (5.00%) p2f=0/240 (0.00%)',
    );
  });

  it('status shows the champion and each front member on their decided counts, and says so', () => {
    const text = renderStatus(
      view({
        champion: NEW,
        pareto_set: [NEW, OLD],
        decided: { champion: decided(1, 3, 7), pareto_set: [decided(1, 3, 7), decided(0, 5, 2)] },
      }),
    ).split('\n');
    expect(text).toContain(
      'champion: champ-g001-r0002-wide checkpoint-0001.pt epoch=1 decided f2p=1/60 p2f=3/240 rejected=7 · raw f2p=3/60 (5.00%) p2f=0/240 (0.00%)',
    );
    expect(text).toContain('pareto set (2), decided on the counts after the reject band (band_decisions):');
    expect(text).toContain(
      '  champ-g001-r0001-base checkpoint-0002.pt epoch=2 decided f2p=0/60 p2f=5/240 rejected=2 · raw f2p=1/60 (1.67%) p2f=3/240 (1.25%)',
    );
    // A stopped loop's status reads the same.
    const stopped = renderStoppedState({ ...banded(NEW, decided(1, 3, 7)) }).split('\n');
    expect(stopped[1]).toBe(
      'champion: champ-g001-r0002-wide checkpoint-0001.pt epoch=1 decided f2p=1/60 p2f=3/240 rejected=7 · raw f2p=3/60 (5.00%) p2f=0/240 (0.00%)',
    );
  });

  it('a loop deciding on raw counts shows them alone, as before', () => {
    expect(renderStatus(view({ champion: NEW, pareto_set: [NEW] })).split('\n')).toContain(
      'champion: champ-g001-r0002-wide checkpoint-0001.pt epoch=1 f2p=3/60 (5.00%) p2f=0/240 (0.00%)',
    );
  });
});

describe('watch: the live frame', () => {
  const now = new Date('2026-01-05T08:01:05.000Z');

  it('shows generation, round, jobs, the champion and how far the reserve check is', () => {
    const frame = renderFrame(
      view({ champion: CHAMPION, test_evals: 12, tests_since_reserve_check: 5, queued: 3 }),
      now,
      8,
    );
    expect(frame[0]).toBe('loop gate · generation 1 · round 1 · 0 running, 3 queued');
    expect(frame[1]).toBe(
      'champion: champ-g001-r0001-base checkpoint-0002.pt epoch=2 f2p=6/60 (10.00%) p2f=12/240 (5.00%)',
    );
    expect(frame[2]).toBe('test evals 12 · until the reserve check: 3 · reserve checks 0');
  });

  it('shows what is left of a test budget, and when it is spent what the loop does about it', () => {
    const line = (test_budget: LoopView['test_budget']): string | undefined =>
      renderFrame(view({ test_evals: 12, tests_since_reserve_check: 5, test_budget }), now, 8)[2];
    expect(line({ reads: 20, when_spent: 'freeze', left: 8 })).toBe(
      'test evals 12 · until the reserve check: 3 · reserve checks 0 · test budget 8 of 20 left',
    );
    expect(line({ reads: 12, when_spent: 'freeze', left: 0 })).toMatch(/ · test budget spent \(frozen\)$/);
    expect(line({ reads: 12, when_spent: 'advance', left: 0 })).toMatch(/ · test budget spent \(advancing\)$/);
  });

  it('shows each lane with what it runs and for how long, an idle lane as idle', () => {
    const frame = renderFrame(
      view({
        in_flight: [
          {
            jobId: 'champ-g001-r0001-base',
            kind: 'run',
            childId: 'champion-loop/gate/g001/r0001/base',
            lane: 'champion-loop.box.gpu0',
            since: '2026-01-05T08:00:00.000Z',
          },
        ],
        lanes: [
          { queue: 'champion-loop.box.gpu0', slots: 1, busy: 1, down_until: null },
          { queue: 'champion-loop.box.gpu1', slots: 1, busy: 0, down_until: '2026-01-05T08:05:00.000Z' },
        ],
        stopping: true,
      }),
      now,
    );
    expect(frame[0]).toContain('1 running, 0 queued · stopping');
    expect(frame[2]).toContain('until the reserve check: 0 since the last');
    expect(frame.slice(3)).toEqual([
      '  champion-loop.box.gpu0 1/1: champ-g001-r0001-base 1m05s',
      '  champion-loop.box.gpu1 0/1 unavailable: idle',
    ]);
  });

  it("shows a GPU lane's device under it: free, this loop's, others', and each job's state and need", () => {
    const lane = 'champion-loop.box.gpu0';
    const device = { index: 0, totalMiB: 81920, freeMiB: 20000 };
    const devices = laneDevices([
      {
        jobId: 'champ-g001-r0001-base',
        lane,
        state: 'running',
        step: 'train',
        sinceMs: Date.parse('2026-01-05T08:00:00.000Z'),
        device: { ...device, heldMiB: 30000, needMiB: 40960 },
        beatMs: Date.parse('2026-01-05T08:01:03.000Z'),
      },
      {
        jobId: 'champ-g001-r0001-wide',
        lane,
        state: 'waiting',
        step: 'train',
        sinceMs: Date.parse('2026-01-05T08:00:30.000Z'),
        device: { ...device, heldMiB: 0, needMiB: 40960 },
        beatMs: Date.parse('2026-01-05T08:01:00.000Z'),
      },
    ]);
    const frame = renderFrame(view(), now, undefined, [], devices);
    expect(frame.slice(3, 7)).toEqual([
      '  champion-loop.box.gpu0 0/1: idle',
      '    device 0: 81920 MiB, free 20000, this loop 30000 (1 job), others 31920',
      '      champ-g001-r0001-base running train since 08:00:00 (1m), holds 30000 of 40960 MiB',
      '      champ-g001-r0001-wide waiting for memory to train since 08:00:30 (35s), needs 40960 MiB',
    ]);
  });

  it('names a reserve check as such', () => {
    const frame = renderFrame(
      view({
        in_flight: [
          {
            jobId: 'reserve-1',
            kind: 'reserve',
            childId: 'c',
            lane: 'champion-loop.box.gpu1',
            since: '2026-01-05T08:01:00.000Z',
          },
        ],
      }),
      now,
    );
    expect(frame[4]).toBe('  champion-loop.box.gpu1 0/1: reserve check reserve-1 5s');
  });
});

describe('status and watch: lanes and queues (issue 18)', () => {
  const now = new Date('2026-01-05T08:10:00.000Z');
  const lanes = [
    { queue: 'champion-loop.box.gpu0', slots: 1, busy: 0, down_until: '2026-01-05T08:05:00.000Z' },
    { queue: 'champion-loop.box.gpu1', slots: 1, busy: 0, down_until: '2026-01-05T08:15:00.000Z' },
  ];

  it('a lane whose unavailable-until time has passed is not shown as unavailable', () => {
    const status = renderStatus(view({ lanes }), undefined, now);
    expect(status).toContain('  lane champion-loop.box.gpu0: 0/1\n');
    expect(status).toContain('  lane champion-loop.box.gpu1: 0/1 (unavailable until 2026-01-05T08:15:00.000Z)');
    expect(renderFrame(view({ lanes }), now).slice(3)).toEqual([
      '  champion-loop.box.gpu0 0/1: idle',
      '  champion-loop.box.gpu1 0/1 unavailable: idle',
    ]);
  });

  it("status shows each job's lane step and priority key, running and queued, next first (issue 45)", () => {
    const status = renderStatus(
      view({
        in_flight: [
          {
            jobId: 'champ-g001-r0002-a',
            kind: 'run',
            step: 'training',
            priority: 4,
            childId: 'c',
            lane: 'champion-loop.box.gpu0',
            since: '2026-01-05T08:00:00.000Z',
          },
        ],
        queued: 3,
        queued_jobs: [
          { jobId: 'reserve-champ-g001-r0001-a-checkpoint-0002.pt-n4', step: 'reserve', priority: 1 },
          { jobId: 'champ-g001-r0001-b', step: 'evaluation', priority: 2 },
        ],
      }),
      undefined,
      now,
    );
    expect(status).toContain('\n    run champ-g001-r0002-a (training, priority 4) since 2026-01-05T08:00:00.000Z');
    expect(status).toContain(
      'jobs: 1 running, 3 queued\n  queued, next first (the first 2): reserve-champ-g001-r0001-a-checkpoint-0002.pt-n4 (reserve check, priority 1), champ-g001-r0001-b (evaluation, priority 2)',
    );
  });

  it('says what a lane was last lost to under a job (issue 48: a lane with no codec key), in status and watch', () => {
    const lost = 'trainRun: lane champion-loop.box.gpu1 has no codec key: set CHAMPION_LOOP_CODEC_KEYS';
    const marked = [
      { queue: 'champion-loop.box.gpu0', slots: 1, busy: 0, down_until: null },
      { queue: 'champion-loop.box.gpu1', slots: 1, busy: 0, down_until: '2026-01-05T08:15:00.000Z', lost_to: lost },
    ];
    expect(renderStatus(view({ lanes: marked }), undefined, now)).toContain(
      `  lane champion-loop.box.gpu1: 0/1 (unavailable until 2026-01-05T08:15:00.000Z)\n    last lost under a job: ${lost}`,
    );
    expect(renderFrame(view({ lanes: marked }), now).slice(3)).toEqual([
      '  champion-loop.box.gpu0 0/1: idle',
      '  champion-loop.box.gpu1 0/1 unavailable: idle',
      `    last lost under a job: ${lost}`,
    ]);
  });

  it('names a queue nobody polls and the command that starts its worker', () => {
    const frame = renderFrame(view(), now, undefined, [{ queue: 'champion-loop.box.gpu1', kind: 'lane' }]);
    expect(frame.slice(3)).toEqual([
      '  champion-loop.box.gpu0 0/1: idle',
      '  champion-loop.box.gpu1 0/1 no worker: idle',
      'no worker polls task queue champion-loop.box.gpu1 (a lane: its jobs wait); start one with: champion-loop worker gpu --device 1 --host box (add --cpu on a box without GPUs)',
    ]);
    expect(describeNoPoller({ queue: 'champion-loop', kind: 'orchestrator' })).toBe(
      'no worker polls task queue champion-loop (the orchestrator: the loop makes no progress and answers no query); start one with: champion-loop worker orchestrator',
    );
    expect(describeNoPoller({ queue: 'champion-loop.package', kind: 'package' })).toContain(
      'start one with: champion-loop worker package',
    );
  });
});

describe('status and watch: GPU time, idle lanes and draining ones (issue 26)', () => {
  const now = new Date('2026-01-05T08:10:00.000Z');

  it("shows the training's GPU-hours, each lane's time without a job, and a lane its worker drains", () => {
    const lanes = [
      {
        queue: 'champion-loop.box.gpu0',
        slots: 2,
        busy: 1,
        down_until: '2026-01-05T08:13:00.000Z',
        draining_until: '2026-01-05T08:13:00.000Z',
        idle_seconds: 750,
        watched_seconds: 3 * 3600 + 300,
      },
      { queue: 'champion-loop.box.gpu1', slots: 1, busy: 0, down_until: null, idle_seconds: 42, watched_seconds: 42 },
    ];
    const status = renderStatus(
      view({ lanes, training_gpu_seconds: { generation: 4500, loop: 36_000 } }),
      undefined,
      now,
    );
    expect(status).toContain(
      "GPU time of training (run rows' gpu_seconds): 1.25 GPU-hours this generation, 10.00 in all\n",
    );
    expect(status).toContain(
      '  lane champion-loop.box.gpu0: 1/2 (draining: its worker takes no new job, its running ones finish); no job 12m of 3h05m (7%)\n',
    );
    expect(status).toContain('  lane champion-loop.box.gpu1: 0/1; no job 42s of 42s (100%)');
    expect(renderFrame(view({ lanes }), now).slice(3, 5)).toEqual([
      '  champion-loop.box.gpu0 1/2 draining: idle',
      '  champion-loop.box.gpu1 0/1: idle',
    ]);
  });

  it('says nothing of GPU time on a loop whose runs used none (CPU lanes), nor of a drain notice that ran out', () => {
    const lanes = [
      {
        queue: 'champion-loop.box.gpu0',
        slots: 1,
        busy: 0,
        down_until: null,
        draining_until: '2026-01-05T08:00:00.000Z',
      },
    ];
    const status = renderStatus(view({ lanes, training_gpu_seconds: { generation: 0, loop: 0 } }), undefined, now);
    expect(status).not.toContain('GPU time');
    expect(status).toMatch(/^ {2}lane champion-loop\.box\.gpu0: 0\/1$/m);
  });
});
