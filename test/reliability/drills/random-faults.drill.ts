import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BOUNDED_CANDIDATES, expectSameLedger, hangAfterRound, runBounded, type BoundedLoop } from '../../helpers/bounded-loop.js';
import { eventually, processesMentioning } from '../../helpers/loop-checks.js';
import { createProcessLoop, type ProcessLoop } from '../../helpers/process-loop.js';
import { killWorker, terminateWorker } from '../../helpers/worker-processes.js';

// A longer drill than CI affords (`npm run fault-drills`): a bounded loop of ROUNDS rounds while
// FAULTS faults, drawn at random (seeded: FAULT_SEED=N repeats a drill), hit it one after the other:
// a lane worker killed or stopped, the orchestrator killed, the package worker killed, the Temporal
// server killed; each comes back after a short outage. The ledger must hold exactly the rows of the
// same loop left alone.
const ROUNDS = 6;
const FAULTS = Number(process.env.FAULTS ?? 10);
const SEED = Number(process.env.FAULT_SEED ?? Date.now() % 100_000);

/** A small seeded generator (mulberry32), so that a failing drill can be repeated. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const KINDS = ['lane-kill', 'lane-term', 'orchestrator-kill', 'package-kill', 'server-kill'] as const;
type FaultKind = (typeof KINDS)[number];

describe('random faults drill', () => {
  let loop: ProcessLoop;
  let baseline: BoundedLoop;

  beforeAll(async () => {
    loop = await createProcessLoop({
      candidates: BOUNDED_CANDIDATES,
      lanes: 3,
      // Every epoch takes a while, so that faults often land in the middle of a step.
      base: { fixture_sleep_ms: 400 },
      loop: { parallel: 2, saturation_evals: 1000, timeouts: { heartbeat: '5s', schedule_to_start: '5s' } },
      laneEnv: { FIXTURE_FAIL_TRAIN: hangAfterRound(ROUNDS).join(',') },
    });
    baseline = await runBounded(loop, 'undisturbed', { rounds: ROUNDS });
  }, 300_000);

  afterAll(async () => {
    await loop?.dispose();
  });

  it(`${FAULTS} random faults while a loop runs ${ROUNDS} rounds: every run and eval recorded once, as in the undisturbed loop`, async () => {
    const draw = random(SEED);
    const injected: string[] = [];
    const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    async function inject(kind: FaultKind): Promise<void> {
      const started = Date.now();
      switch (kind) {
        case 'lane-kill':
        case 'lane-term': {
          // A busy lane when there is one: the fault then lands in the middle of a step.
          const view = await loop.view('drill').catch(() => null);
          const busy = view?.in_flight.map((flight) => loop.laneOf(flight.lane).device) ?? [];
          const device = busy.length > 0 ? (busy[Math.floor(draw() * busy.length)] as number) : Math.floor(draw() * loop.lanes.length);
          const worker = loop.lanes[device];
          if (!worker) return;
          if (kind === 'lane-kill') await killWorker(worker);
          else await terminateWorker(worker);
          await pause(4_000 + draw() * 6_000);
          await loop.restart(device);
          injected.push(`${kind} gpu${device} (${Date.now() - started} ms down)`);
          return;
        }
        case 'orchestrator-kill':
          await killWorker(loop.orchestrator);
          await pause(1_000 + draw() * 3_000);
          await loop.restart('orchestrator');
          break;
        case 'package-kill':
          await killWorker(loop.packager);
          await pause(1_000 + draw() * 3_000);
          await loop.restart('packager');
          break;
        case 'server-kill':
          await loop.killServer();
          await pause(1_000 + draw() * 3_000);
          await loop.restartServer();
          break;
      }
      injected.push(`${kind} (${Date.now() - started} ms down)`);
    }

    const started = Date.now();
    const disturbed = await runBounded(loop, 'drill', {
      rounds: ROUNDS,
      timeoutMs: 900_000,
      during: async () => {
        for (let fault = 0; fault < FAULTS; fault += 1) {
          await pause(500 + draw() * 3_000);
          await inject(KINDS[Math.floor(draw() * KINDS.length)] as FaultKind);
        }
      },
    });
    const compared = expectSameLedger(disturbed, baseline);
    // No subprocess of the loop outlived the drill (the hanging round was stopped at once).
    await eventually(async () => (await processesMentioning(loop.configFor('drill').runs_root)).length === 0, 30_000, async () => JSON.stringify(await processesMentioning(loop.configFor('drill').runs_root)));
    expect(injected).toHaveLength(FAULTS);
    console.log(`random faults (seed ${SEED}): ${injected.join('; ')}`);
    console.log(`random faults (seed ${SEED}): ${FAULTS} faults injected, ${compared} rows compared, ${Math.round((Date.now() - started) / 1000)} s`);
  }, 1_200_000);
});
