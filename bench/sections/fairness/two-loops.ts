// Section 12's run of one server setting: two loops on the same lanes (in-process lane workers of
// a dev server of their own), a big one that floods the lanes' queues with 10x the other's
// trainings, and a small one with reserve checks due every few test evals and a fairness weight
// of its own. The big loop starts first and queues its slots' worth; then the small one; after a
// warm-up both run for a fixed window, are stopped at once, and their lane steps are read back
// from their children's histories.
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from '@temporalio/client';
import { startLoop } from '../../../src/client/loop-start.js';
import type { LoopConfig } from '../../../src/config/loop-config.js';
import { loopWorkflowId } from '../../../src/workflows/ids.js';
import { stateQuery, stopNowSignal } from '../../../src/workflows/messages.js';
import { withBenchSession } from '../../lib/bench-session.js';
import type { BenchContext } from '../../lib/context.js';
import type { LaneStep, Window } from '../../lib/fairness-math.js';
import type { LaneSpec } from '../../lib/loop-folder.js';
import { fleetLoopFolder } from '../fleet/loop.js';
import { loopLaneSteps } from './lane-steps.js';

export const BIG = 'big';
export const SMALL = 'small';
const HOST = 'shared';

/** A server setting the two loops run under. */
export interface FairnessMode {
  readonly name: 'arrival' | 'priority' | 'fairness';
  readonly label: string;
  /** Over temporal-dev.yaml's dynamic config. */
  readonly dynamicConfig: Record<string, unknown>;
}

export const MODES: readonly FairnessMode[] = [
  {
    name: 'arrival',
    label: 'arrival order (no priority, no fairness)',
    dynamicConfig: { 'matching.useNewMatcher': false, 'matching.enableFairness': false },
  },
  { name: 'priority', label: 'priority, fairness off', dynamicConfig: { 'matching.enableFairness': false } },
  { name: 'fairness', label: 'priority and fairness', dynamicConfig: {} },
];

/** The shape of the run: the same for every mode. */
export interface TwoLoopsSpec {
  readonly lanes: number;
  readonly laneSlots: number;
  readonly jobMs: readonly [number, number];
  readonly windowMs: number;
  readonly warmUpMs: number;
  readonly big: { readonly candidates: number; readonly slotsPerLane: number; readonly weight: number };
  readonly small: {
    readonly candidates: number;
    readonly slotsPerLane: number;
    readonly weight: number;
    readonly saturationEvals: number;
  };
}

export interface ModeRun {
  readonly mode: FairnessMode;
  readonly window: Window;
  readonly steps: LaneStep[];
}

/** One loop's folder and config on the shared lanes: `slotsPerLane` of its own on each. */
async function loopConfig(
  dir: string,
  lanes: readonly LaneSpec[],
  spec: TwoLoopsSpec,
  loop: { readonly candidates: number; readonly slotsPerLane: number; readonly weight: number },
  saturationEvals: number,
): Promise<LoopConfig> {
  const own = lanes.map((lane) => ({ ...lane, slots: loop.slotsPerLane }));
  const folder = await fleetLoopFolder(dir, own, loop.candidates, spec.jobMs);
  return {
    ...folder.config,
    parallel: loop.slotsPerLane * lanes.length,
    saturation_evals: saturationEvals,
    fairness_weight: loop.weight,
    // Queued behind the other loop's flood in arrival order, a step waits long: not a lost lane.
    timeouts: { ...folder.config.timeouts, schedule_to_start: '10m' },
  };
}

/** Poll the loop's state until `done` says so (or throw after `timeoutMs`). */
async function waitForLoop(
  client: Client,
  loop: string,
  done: (inFlight: number) => boolean,
  timeoutMs: number,
): Promise<void> {
  const handle = client.workflow.getHandle(loopWorkflowId(loop));
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const view = await handle.query(stateQuery).catch(() => null);
    if (view && done(view.in_flight.length)) return;
    if (Date.now() > deadline) throw new Error(`loop ${loop} did not get its jobs going in time`);
    await sleep(250);
  }
}

/** Stop both loops at once (their running children cancelled) and wait until they closed. */
async function stopBoth(client: Client): Promise<void> {
  for (const loop of [BIG, SMALL]) {
    const handle = client.workflow.getHandle(loopWorkflowId(loop));
    await handle.signal(stopNowSignal);
    await handle.result().catch(() => undefined);
  }
}

export async function runTwoLoops(ctx: BenchContext, mode: FairnessMode, spec: TwoLoopsSpec): Promise<ModeRun> {
  return withBenchSession(ctx, `fairness-${mode.name}`, mode.dynamicConfig, async (session) => {
    const { client, server } = session;
    const lanes = Array.from({ length: spec.lanes }, (_, device) => ({ host: HOST, device, slots: spec.laneSlots }));
    await session.inProcess(lanes);
    const big = await loopConfig(path.join(server.dir, BIG), lanes, spec, spec.big, 1_000_000_000);
    const small = await loopConfig(path.join(server.dir, SMALL), lanes, spec, spec.small, spec.small.saturationEvals);
    await startLoop(client, BIG, big);
    // The flood first: its slots' worth of trainings in the lanes' queues before the small loop comes.
    await waitForLoop(client, BIG, (inFlight) => inFlight >= big.parallel, 120_000);
    await startLoop(client, SMALL, small);
    await waitForLoop(client, SMALL, (inFlight) => inFlight > 0, 120_000);
    await sleep(spec.warmUpMs);
    const start = Date.now();
    ctx.log(`fairness: ${mode.label}: both loops running; measuring ${spec.windowMs / 1000} s`);
    await sleep(spec.windowMs);
    const window = { start, end: Date.now() };
    await stopBoth(client);
    const steps = [...(await loopLaneSteps(client, BIG)), ...(await loopLaneSteps(client, SMALL))];
    return { mode, window, steps };
  });
}
