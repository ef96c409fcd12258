import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runIdFor } from '../../src/rules/ids.js';
import { loopWorkflowId } from '../../src/workflows/ids.js';
import { stateQuery } from '../../src/workflows/messages.js';
import { BOUNDED_CANDIDATES, expectSameLedger, hangAfterRound, runBounded, type BoundedLoop } from '../helpers/bounded-loop.js';
import { eventually, processesMentioning } from '../helpers/loop-checks.js';
import { createProcessLoop, type ProcessLoop } from '../helpers/process-loop.js';
import { killWorker } from '../helpers/worker-processes.js';

// The orchestrator (every workflow and the CPU activities) and the Temporal dev server itself die
// with SIGKILL in the middle of a generation and come back a little later.
const ROUNDS = 3;
/** A run slow enough (1 s per epoch) to be in the middle of when the fault hits. */
const TARGET = runIdFor(1, 2, 'a');
const OUTAGE_MS = 3_000;

describe('the orchestrator or the Temporal server lost in the middle of a generation', () => {
  let loop: ProcessLoop;
  let baseline: BoundedLoop;

  beforeAll(async () => {
    loop = await createProcessLoop({
      candidates: BOUNDED_CANDIDATES,
      lanes: 2,
      loop: { parallel: 2, saturation_evals: 1000, timeouts: { heartbeat: '5s', schedule_to_start: '20s' } },
      laneEnv: { FIXTURE_FAIL_TRAIN: [...hangAfterRound(ROUNDS), `slow:${TARGET}`].join(',') },
    });
    baseline = await runBounded(loop, 'undisturbed', { rounds: ROUNDS });
  }, 240_000);

  afterAll(async () => {
    await loop?.dispose();
  });

  /** Wait until TARGET trains in a loop: the generation is in the middle of round 2. */
  async function whileTargetTrains(loopId: string): Promise<void> {
    const runsRoot = loop.configFor(loopId).runs_root;
    await eventually(
      async () => (await processesMentioning(runsRoot)).some((p) => p.cmdline.includes(`--run-id ${TARGET}`) && p.cmdline.includes('train.mjs')),
      60_000,
      () => `no trainer of ${TARGET}`,
    );
  }

  /** How long until the loop answers its state query again (a worker polls and runs workflow tasks). */
  async function answersAgain(loopId: string, since: number): Promise<number> {
    const handle = loop.client.workflow.getHandle(loopWorkflowId(loopId));
    await eventually(() => handle.query(stateQuery).then(() => true, () => false), 120_000, () => `loop ${loopId} does not answer`);
    return Date.now() - since;
  }

  it('kill -9 of the orchestrator mid-generation, restarted a little later: the loop goes on and records every run and eval once', async () => {
    let faults = 0;
    const disturbed = await runBounded(loop, 'orchestrator-kill', {
      rounds: ROUNDS,
      during: async () => {
        await whileTargetTrains('orchestrator-kill');
        const killed = Date.now();
        expect((await killWorker(loop.orchestrator)).signal).toBe('SIGKILL');
        faults += 1;
        await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS));
        const restarted = Date.now();
        await loop.restart('orchestrator');
        const ready = Date.now() - restarted;
        const answered = await answersAgain('orchestrator-kill', killed);
        console.log(`orchestrator kill -9: down ${OUTAGE_MS} ms, the new worker connected ${ready} ms after its start, the loop answered ${answered} ms after the kill`);
      },
    });
    const compared = expectSameLedger(disturbed, baseline);
    console.log(`orchestrator kill -9: ${faults} fault injected, ${compared} rows compared`);
  });

  it('the Temporal server killed with SIGKILL and restarted on its database mid-generation: the workers reconnect by themselves and the loop goes on', async () => {
    let faults = 0;
    const disturbed = await runBounded(loop, 'server-kill', {
      rounds: ROUNDS,
      during: async () => {
        await whileTargetTrains('server-kill');
        const pids = [loop.orchestrator.pid, loop.packager.pid, ...loop.lanes.map((lane) => lane.pid)];
        const killed = Date.now();
        await loop.killServer();
        faults += 1;
        await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS));
        const restarted = Date.now();
        await loop.restartServer();
        const up = Date.now() - restarted;
        const answered = await answersAgain('server-kill', restarted);
        // Nobody restarted a worker: the same processes reconnected on their own.
        expect([loop.orchestrator.pid, loop.packager.pid, ...loop.lanes.map((lane) => lane.pid)]).toEqual(pids);
        const progressed = await loop.waitFor('server-kill', (view) => view.round >= 3, 120_000).then(() => Date.now() - restarted);
        console.log(
          `server kill -9: down ${OUTAGE_MS} ms (+${up} ms to answer again after its start); workers reconnected on their own: ` +
            `the loop answered ${answered} ms and planned round 3 ${progressed} ms after the restart (${Date.now() - killed} ms after the kill)`,
        );
      },
    });
    const compared = expectSameLedger(disturbed, baseline);
    console.log(`server kill -9: ${faults} fault injected, ${compared} rows compared`);
  });
});
