// A generation's state: what it carries across continue-as-new plus what lives only in one run.
// Its report handlers, planning and dispatch change it; `toCarry()` and `view()` read it whole.
import { log } from '@temporalio/workflow';
import type { LoopPaths, PackageChampion } from '../../activities/types.js';
import { durationMs } from '../../config/duration.js';
import type { LoopConfig } from '../../config/loop-config.js';
import { decidedCounts, foldSettingsOf, recordRow, stateJson, type FoldSettings } from '../../ledger/loop-state.js';
import type { Folded } from '../../ledger/report-fold.js';
import { reserveCheckPower } from '../../ledger/reserve-check-power.js';
import type { ReserveCheckRow } from '../../ledger/rows.js';
import type { ChampionIdentity } from '../../rules/champion.js';
import { ALPHA } from '../../rules/constants.js';
import { testBudgetView } from '../../rules/test-reuse.js';
import type { EvalRow } from '../../rules/types.js';
import { loopWorkflowId } from '../ids.js';
import { lanesOf, type Lane } from '../lanes.js';
import type { LoopView, ReserveCheckBrief } from '../loop-view.js';
import { carriedKeys, firstCarry, type GenerationCarry, type GenerationInput, type GenerationResult } from './carry.js';
import { jobStep, type InFlight, type Job } from './jobs.js';
import { loopQueueingOf, stepPriority, type StepKind } from '../step-priority.js';
import type { LaneDraining } from '../messages.js';
import { idleSoFar, noteLaneUse } from './lane-use.js';
import type { LaneSpan } from './lane-waits.js';
import { definedFields } from '../../support/defined-fields.js';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** The generation's mutable state: the carried fields, the loop's settings, and this run's own. */
export interface Generation extends Mutable<GenerationCarry> {
  readonly loopId: string;
  readonly config: LoopConfig;
  readonly settings: FoldSettings;
  readonly paths: LoopPaths;
  readonly lanes: Lane[];
  readonly selfId: string;
  readonly carriedKeys: (keyof GenerationCarry)[];
  stopNow: boolean;
  splitError: string | null;
  idle: boolean;
  /** Something changed since the main loop last looked (a report, a signal). */
  dirty: boolean;
  /** A `resume` asked to hand the champion to packaging again if packaging was ended by hand. */
  repackage: boolean;
  /**
   * Children this run asked to start that have not started yet. The run must not end before they
   * have: the service drops the start of a child whose parent closed first (ABANDON or not).
   */
  startsPending: number;
  /** Jobs a stop at once cancelled (this run ends right after: never carried). */
  readonly cancelling: InFlight[];
  /** Due teacher builds and ensembles: dispatched before the round queue. */
  readonly builds: Job[];
  /** Teacher files the students of the last planning wait for (an idle loop watches them). */
  waitingFor: string[];
  /** The last reserve check this run recorded, for the Web UI's current details (details.ts). */
  lastReserve: ReserveCheckRow | null;
}

export const now = (): string => new Date().toISOString();

function pathsOf(config: LoopConfig): LoopPaths {
  return {
    workdir: config.workdir,
    stateDir: config.state_dir,
    runsRoot: config.runs_root,
    dataRoot: config.data_root,
    scoreCacheDir: config.score_cache_dir,
  };
}

/**
 * This run's state from its input: the carry (fields an older carry lacks take their first values).
 * `championIdentity` 'object': the run was recorded before patch champion-identity (generation.ts).
 */
export function openGeneration(
  input: GenerationInput,
  started: string,
  championIdentity: ChampionIdentity = 'checkpoint',
): Generation {
  const { loopId, config } = input;
  const first = firstCarry(config, started, input.incarnation);
  const carry: GenerationCarry = { ...first, ...input.carry };
  const settings: FoldSettings = {
    ...foldSettingsOf(config),
    ...(championIdentity === 'object' ? { championIdentity } : {}),
  };
  const gen: Generation = {
    ...carry,
    queue: [...carry.queue],
    inFlight: [...carry.inFlight],
    lanesDownUntil: { ...carry.lanesDownUntil },
    lanesDownWhy: { ...carry.lanesDownWhy },
    lanesDraining: { ...carry.lanesDraining },
    laneUse: { ...carry.laneUse },
    waitsReported: [...carry.waitsReported],
    unpackaged: [...carry.unpackaged],
    loopId,
    config,
    settings,
    paths: pathsOf(config),
    lanes: lanesOf(config),
    selfId: loopWorkflowId(loopId),
    carriedKeys: carriedKeys(first),
    stopNow: false,
    splitError: null,
    idle: false,
    dirty: false,
    repackage: false,
    startsPending: 0,
    cancelling: [],
    builds: [],
    waitingFor: [],
    lastReserve: null,
  };
  // The generation opens before any handler runs: a signal delivered with the run's first task
  // (an advance sent before a worker picked the run up) applies to the opened generation, as the
  // ledger exporter folds it, instead of being wiped by the opening.
  if (carry.opening) {
    gen.state = recordRow(gen.state, carry.opening, settings).state;
    gen.openedBy = carry.opening.reason;
    gen.openedAt = carry.opening.started;
  }
  return gen;
}

/** Everything the next run needs: the carried fields, due builds queued first. */
export function toCarry(gen: Generation): GenerationCarry {
  const carried = Object.fromEntries(gen.carriedKeys.map((key) => [key, gen[key]])) as unknown as GenerationCarry;
  return { ...carried, opening: null, queue: [...gen.builds, ...gen.queue] };
}

/** The loop stopped: its view, and a carry that resumes it with nothing in flight. */
export function stopped(gen: Generation): GenerationResult {
  // A loop started again (an operator acted, perhaps with an edited loop.yaml) does not go on pausing.
  // Nor does it keep a split it gave up on: starting it again tries the split again.
  return {
    view: view(gen),
    resume: { ...toCarry(gen), stopping: false, inFlight: [], failing: null, splitFailed: null },
  };
}

/** Note which lanes have a job of the loop now: their idle time (lane-use.ts). Not for queries: it changes the state. */
export function noteLanesInUse(gen: Generation): void {
  gen.laneUse = noteLaneUse(
    gen.laneUse,
    gen.lanes.map((lane) => lane.queue),
    openSpans(gen),
    Date.now(),
  );
}

/** The loop's jobs in flight by lane, each from its dispatch on (working until it reports: lane-waits.ts). */
function openSpans(gen: Generation): Map<string, LaneSpan[]> {
  const open = new Map<string, LaneSpan[]>();
  const nowMs = Date.now();
  for (const flight of gen.inFlight) {
    const fromMs = Math.min(nowMs, Date.parse(flight.since) || nowMs);
    open.set(flight.lane, [...(open.get(flight.lane) ?? []), { fromMs, toMs: nowMs, waits: [] }]);
  }
  return open;
}

export function busyLanes(gen: Generation): Map<string, number> {
  const busy = new Map<string, number>();
  for (const flight of gen.inFlight) busy.set(flight.lane, (busy.get(flight.lane) ?? 0) + 1);
  return busy;
}

/** The queued jobs the view lists, first ones first. */
const QUEUED_SHOWN = 20;

/** A job as the view shows it: its id, its kind of lane step and the priority key it is (or will be) started with. */
function queuedView(gen: Generation, job: Job): { jobId: string; step: StepKind; priority: number } {
  const step = jobStep(job);
  return {
    jobId: job.jobId,
    step,
    priority: stepPriority(gen.loopId, step, loopQueueingOf(gen.config)).priorityKey ?? 0,
  };
}

/** What the `state` query answers: the seed's state.json plus rounds, lanes and what runs where. */
export function view(gen: Generation): LoopView {
  const busy = busyLanes(gen);
  return {
    ...stateJson(gen.state, gen.paths.stateDir, now()),
    loop_id: gen.loopId,
    opened_by: gen.openedBy,
    reserve_checks_seen: gen.reserveChecksSeen,
    last_reserve_check: gen.lastReserveCheck,
    ...(gen.settings.mode === 'band-decisions' ? { decided: decidedCounts(gen.state, gen.settings) } : {}),
    state_dir: gen.paths.stateDir,
    ...definedFields({ artifact_store: gen.config.artifacts?.url }),
    round: gen.round,
    stopping: gen.stopping,
    split_ready: gen.split !== null,
    queued: gen.queue.length + gen.builds.length,
    queued_jobs: [...gen.builds, ...gen.queue].slice(0, QUEUED_SHOWN).map((job) => queuedView(gen, job)),
    in_flight: gen.inFlight.map((flight) => ({
      ...queuedView(gen, flight.job),
      kind: flight.job.kind,
      childId: flight.childId,
      lane: flight.lane,
      since: flight.since,
    })),
    lanes: gen.lanes.map((lane) => {
      const downUntil = gen.lanesDownUntil[lane.queue] ?? 0;
      const drainingUntil = gen.lanesDraining[lane.queue] ?? 0;
      const use = gen.laneUse[lane.queue];
      const idle = use && idleSoFar(use, Date.now(), openSpans(gen).get(lane.queue));
      return {
        queue: lane.queue,
        slots: lane.slots,
        busy: busy.get(lane.queue) ?? 0,
        down_until: downUntil > Date.now() ? new Date(downUntil).toISOString() : null,
        ...definedFields({ lost_to: gen.lanesDownWhy[lane.queue] }),
        draining_until: drainingUntil > Date.now() ? new Date(drainingUntil).toISOString() : null,
        ...(idle
          ? {
              idle_seconds: Math.round(idle.idleMs / 1000),
              watched_seconds: Math.round(idle.watchedMs / 1000),
              memory_wait_seconds: Math.round(idle.waitMs / 1000),
            }
          : {}),
      };
    }),
    training_gpu_seconds: {
      generation: gen.trainingGpu.generation === gen.state.generation ? gen.trainingGpu.seconds : 0,
      loop: gen.trainingGpu.loopSeconds,
    },
    ...(gen.trainingGpu.loopUsd === undefined
      ? {}
      : {
          training_gpu_usd: {
            generation: gen.trainingGpu.generation === gen.state.generation ? (gen.trainingGpu.usd ?? 0) : 0,
            loop: gen.trainingGpu.loopUsd,
          },
        }),
    candidates: (gen.candidates ?? []).map((candidate) => candidate.name),
    candidates_error: gen.candidatesError,
    split_error: gen.splitFailed?.error ?? gen.splitError,
    split_given_up: gen.splitFailed !== null,
    idle: gen.idle,
    last_reserve_power: gen.lastReserve && reserveCheckPower(gen.lastReserve),
    ...(gen.settings.testBudget ? { test_budget: testBudgetView(gen.state.testEvals, gen.settings.testBudget) } : {}),
    failing: gen.failing && {
      reason: gen.failing.reason,
      since: gen.failing.since,
      rounds: gen.failing.rounds,
      paused_until: gen.failing.until > Date.now() ? new Date(gen.failing.until).toISOString() : null,
    },
  };
}

/** The champion fields packaging needs. */
export function packageChampionOf(row: EvalRow, requested: string): PackageChampion {
  return {
    generation: row.generation,
    run_id: row.run_id,
    epoch: row.epoch,
    checkpoint_name: row.checkpoint_name,
    checkpoint: row.checkpoint,
    config_path: row.config_path,
    eval_json: row.eval_json,
    ...definedFields({ manifest: row.manifest, files: row.files }),
    requested,
  };
}

/** A reserve_check row as `watch` prints it; `advanceReason` the state's after it. */
function reserveCheckBrief(row: ReserveCheckRow, advanceReason: string | null): ReserveCheckBrief {
  return {
    generation: row.generation,
    run_id: row.run_id,
    checkpoint_name: row.checkpoint_name,
    status: row.status,
    verdict: row.verdict,
    stale: row.stale_champion === true,
    f2p_p: row.f2p_p ?? null,
    p2f_p: row.p2f_p ?? null,
    alpha: ALPHA,
    ends: row.stale_champion === true ? null : advanceReason,
  };
}

/** Take a fold's result: its state, and its new champions go to packaging. */
export function take(gen: Generation, folded: Folded): void {
  gen.state = folded.state;
  for (const row of folded.rows) {
    if (row.type !== 'reserve_check') continue;
    gen.lastReserve = row;
    gen.reserveChecksSeen += 1;
    gen.lastReserveCheck = reserveCheckBrief(row, gen.state.advanceReason);
  }
  for (const champion of folded.newChampions) {
    log.info('new champion', {
      generation: champion.generation,
      // Not `runId`: the workflow logger's own field (this workflow run's id) keeps its meaning.
      trainingRunId: champion.run_id,
      checkpoint: champion.checkpoint_name,
      result: champion.result,
    });
    if (gen.config.commands.package) gen.unpackaged.push(packageChampionOf(champion, champion.finished));
  }
}

/** The longest a lane's drain notice keeps jobs away: its worker says it again every minute while it drains. */
const MAX_DRAIN_NOTICE_MS = 60 * 60_000;

/**
 * A lane's worker drains (it takes nothing new there until `forMs` from now; it says so again
 * while it drains, so a notice runs out soon after the worker has gone) or is up (`forMs` 0: it
 * takes jobs at once again, a lane marked down for not starting work in time included).
 */
export function onLaneDraining(gen: Generation, notice: unknown): void {
  const lane = (notice as Partial<LaneDraining> | null)?.lane;
  const forMs = (notice as Partial<LaneDraining> | null)?.forMs;
  if (typeof lane !== 'string' || typeof forMs !== 'number' || !Number.isFinite(forMs) || forMs < 0) {
    log.warn('ignored a malformed laneDraining signal', { notice });
    return;
  }
  // A loop that does not use the lane has nothing to do with it.
  if (!gen.lanes.some((entry) => entry.queue === lane)) return;
  if (forMs === 0) {
    delete gen.lanesDraining[lane];
    delete gen.lanesDownUntil[lane];
    log.info('lane up: its worker started', { lane });
  } else {
    const until = Date.now() + Math.min(forMs, MAX_DRAIN_NOTICE_MS);
    if (gen.lanesDraining[lane] === undefined) log.info('lane draining: no new job goes to it', { lane });
    gen.lanesDraining[lane] = until;
    gen.lanesDownUntil[lane] = Math.max(gen.lanesDownUntil[lane] ?? 0, until);
  }
  gen.dirty = true;
}

/**
 * A lane that did not start work in time takes nothing for a while. `why`: what the lane was lost
 * to before (its worker stopped with no codec key...), kept until a job on it reports again.
 */
export function laneDown(gen: Generation, lane: string, why: string | null = null): void {
  gen.lanesDownUntil[lane] = Date.now() + durationMs(gen.config.timeouts.schedule_to_start);
  if (why !== null) gen.lanesDownWhy[lane] = why.slice(0, 500);
  log.warn('lane did not start work in time; sending its jobs elsewhere for a while', { lane });
}
