import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seededRandom } from '../../../bench/lib/durations.js';
import {
  BOUNDED_CANDIDATES,
  expectSameLedger,
  hangAfterRound,
  runBounded,
  type BoundedLoop,
} from '../../helpers/bounded-loop.js';
import { processesMentioning } from '../../helpers/loop-checks.js';
import { createProcessLoop, type ProcessLoop } from '../../helpers/process-loop.js';
import { killWorker, terminateWorker } from '../../helpers/worker-processes.js';

// A longer drill than CI affords (`npm run fault-drills`): a bounded loop of ROUNDS rounds (16;
// DRILL_ROUNDS) while up to FAULTS faults (10) hit it one after the other until its last round,
// each kind once in every five (seeded random order and timing: FAULT_SEED=N repeats a drill): a
// lane worker killed or stopped, the orchestrator killed, the package worker killed, the Temporal
// server killed; each comes back after a short outage. The ledger must hold exactly the rows of
// the same loop left alone.
const ROUNDS = Number(process.env.DRILL_ROUNDS ?? 16);
const FAULTS = Number(process.env.FAULTS ?? 10);
const SEED = Number(process.env.FAULT_SEED ?? Date.now() % 100_000);

const KINDS = ['lane-kill', 'lane-term', 'orchestrator-kill', 'package-kill', 'server-kill'] as const;
type FaultKind = (typeof KINDS)[number];

describe('random faults drill', () => {
  let loop: ProcessLoop;
  let baseline: BoundedLoop;

  beforeAll(async () => {
    loop = await createProcessLoop({
      candidates: BOUNDED_CANDIDATES,
      lanes: 3,
      // Every epoch takes a second, so that faults often land in the middle of a step.
      base: { fixture_sleep_ms: 1_000 },
      // A lost lane counts against retries.lost_lane, and past it against the attempts: enough
      // of both that faults never use them up.
      loop: {
        parallel: 2,
        saturation_evals: 1000,
        timeouts: { heartbeat: '5s', schedule_to_start: '5s' },
        retries: { train: 20, evaluate: 20, package: 1, lost_lane: 20 },
      },
      laneEnv: { FIXTURE_FAIL_TRAIN: hangAfterRound(ROUNDS).join(',') },
    });
    baseline = await runBounded(loop, 'undisturbed', { rounds: ROUNDS, timeoutMs: 600_000 });
  }, 900_000);

  afterAll(async () => {
    await loop?.dispose();
  });

  it(`up to ${FAULTS} random faults while a loop runs ${ROUNDS} rounds: every run and eval recorded once, as in the undisturbed loop`, async () => {
    // Seeded, so that a failing drill can be repeated (FAULT_SEED).
    const draw = seededRandom(SEED);
    /** The kinds in a fresh random order for every five faults: each kind hits once in each five. */
    const order: FaultKind[] = [];
    const nextKind = (): FaultKind => {
      if (order.length === 0) {
        const shuffled = [...KINDS];
        for (let i = shuffled.length - 1; i > 0; i -= 1) {
          const j = Math.floor(draw() * (i + 1));
          [shuffled[i], shuffled[j]] = [shuffled[j] as FaultKind, shuffled[i] as FaultKind];
        }
        order.push(...shuffled);
      }
      return order.shift() as FaultKind;
    };
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
          const device =
            busy.length > 0
              ? (busy[Math.floor(draw() * busy.length)] as number)
              : Math.floor(draw() * loop.lanes.length);
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
          await pause(500 + draw() * 2_000);
          // Once the hanging last round runs, faults would only bring its jobs down: the drill is over.
          const view = await loop.view('drill').catch(() => null);
          if (view && view.round > ROUNDS) break;
          await inject(nextKind());
        }
      },
    });
    const compared = expectSameLedger(disturbed, baseline);
    // No subprocess of the loop outlived the drill (the hanging round was stopped at once).
    await expect
      .poll(() => processesMentioning(loop.configFor('drill').runs_root), {
        timeout: 30_000,
        interval: 250,
        message: 'no process of the loop is left',
      })
      .toEqual([]);
    expect(injected.length).toBeGreaterThanOrEqual(Math.min(FAULTS, 5));
    console.log(`random faults (seed ${SEED}): ${injected.join('; ')}`);
    console.log(
      `random faults (seed ${SEED}): ${injected.length} faults injected, ${compared} rows compared, ${Math.round((Date.now() - started) / 1000)} s`,
    );
  }, 1_800_000);
});
