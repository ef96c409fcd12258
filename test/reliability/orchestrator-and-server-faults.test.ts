import { readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { loopState } from '../../src/client/loop-look.js';
import { stateFromLedger } from '../../src/ledger/from-ledger.js';
import { foldSettingsOf } from '../../src/ledger/loop-state.js';
import { runIdFor } from '../../src/rules/ids.js';
import { loopWorkflowId } from '../../src/workflows/ids.js';
import { stateQuery, stopNowSignal } from '../../src/workflows/messages.js';
import {
  BOUNDED_CANDIDATES,
  expectSameLedger,
  hangAfterRound,
  runBounded,
  type BoundedLoop,
} from '../helpers/bounded-loop.js';
import { processesMentioning, rowsOf, stateOf } from '../helpers/loop-checks.js';
import { FIXTURE_COMMANDS } from '../helpers/loop-harness.js';
import { createProcessLoop, type ProcessLoop } from '../helpers/process-loop.js';
import { hasExited, killWorker } from '../helpers/worker-processes.js';

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

  // A test that fails between its kill and its restart leaves no orchestrator: the next tests get
  // one again, so that they fail, if they do, for their own reasons.
  afterEach(async () => {
    if (loop && (await hasExited(loop.orchestrator))) await loop.restart('orchestrator');
  });

  /** Wait until TARGET trains in a loop: the generation is in the middle of round 2. */
  async function whileTargetTrains(loopId: string): Promise<void> {
    const runsRoot = loop.configFor(loopId).runs_root;
    await expect
      .poll(
        async () =>
          (await processesMentioning(runsRoot)).some(
            (p) => p.cmdline.includes(`--run-id ${TARGET}`) && p.cmdline.includes('train.mjs'),
          ),
        {
          timeout: 60_000,
          interval: 250,
          message: `a trainer of ${TARGET} runs`,
        },
      )
      .toBe(true);
  }

  /** How long until the loop answers its state query again (a worker polls and runs workflow tasks). */
  async function answersAgain(loopId: string, since: number): Promise<number> {
    const handle = loop.client.workflow.getHandle(loopWorkflowId(loopId));
    await expect
      .poll(
        () =>
          handle.query(stateQuery).then(
            () => true,
            () => false,
          ),
        { timeout: 120_000, interval: 250, message: `loop ${loopId} answers` },
      )
      .toBe(true);
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
        // What `status` runs, at once: the dead worker still shows as a poller, so it must not wait
        // for the query to time out (half a minute) before it answers from history.
        const asked = Date.now();
        const status = await loopState(loop.client, 'orchestrator-kill');
        const statusMs = Date.now() - asked;
        expect(status).toMatchObject({ kind: 'running', view: null });
        expect(status.kind === 'running' ? status.unanswered : '').toMatch(
          /no orchestrator worker answered its state query within 5 s/,
        );
        expect(statusMs).toBeLessThan(10_000);
        console.log(`orchestrator kill -9: status answered from history ${statusMs} ms after the kill`);
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, OUTAGE_MS - (Date.now() - killed))));
        const restarted = Date.now();
        await loop.restart('orchestrator');
        const ready = Date.now() - restarted;
        const answered = await answersAgain('orchestrator-kill', killed);
        console.log(
          `orchestrator kill -9: down ${OUTAGE_MS} ms, the new worker connected ${ready} ms after its start, the loop answered ${answered} ms after the kill`,
        );
      },
    });
    const compared = expectSameLedger(disturbed, baseline);
    console.log(`orchestrator kill -9: ${faults} fault injected, ${compared} rows compared`);
  });

  it("a stop --now crossing a job's report while the orchestrator is away: the report counts once, in the live state and the exported ledger alike", async () => {
    // a hangs in training; b is slow to evaluate, so that its report is on its way when the stop comes.
    const candidates = path.join(loop.dir, 'crossing.candidates.yaml');
    await writeFile(
      candidates,
      stringify({
        candidates: [
          { name: 'a', base_config: 'configs/base.yaml' },
          { name: 'b', base_config: 'configs/base.yaml', overrides: { fixture_eval_sleep_ms: 4_000 } },
        ],
      }),
    );
    const commands = {
      ...loop.config.commands,
      train: ['env', `FIXTURE_FAIL_TRAIN=hang:${runIdFor(1, 1, 'a')}`, ...FIXTURE_COMMANDS.train],
    };
    await loop.startWith('crossing', { candidates, commands, saturation_evals: 1000 });
    const stateDir = loop.configFor('crossing').state_dir;
    const b = runIdFor(1, 1, 'b');
    await expect
      .poll(
        async () =>
          (await processesMentioning(stateDir)).some(
            (p) => p.cmdline.includes('evaluate.mjs') && p.cmdline.includes(b),
          ),
        { timeout: 60_000, interval: 250, message: `${b} is evaluated` },
      )
      .toBe(true);
    // The orchestrator goes; the stop comes while b's evaluation finishes, so b's report and the stop meet when it is back.
    const loopHandle = loop.client.workflow.getHandle(loopWorkflowId('crossing'));
    const timedOutTasks = async () =>
      ((await loopHandle.fetchHistory()).events ?? []).filter((event) => event.workflowTaskTimedOutEventAttributes)
        .length;
    const timedOutBefore = await timedOutTasks();
    await killWorker(loop.orchestrator);
    await loop.client.workflow.getHandle(loopWorkflowId('crossing')).signal(stopNowSignal);
    await expect
      .poll(
        async () =>
          (await readdir(path.join(stateDir, 'evals', b)).catch(() => [])).some((file) => file.endsWith('.test.json')),
        { timeout: 60_000, interval: 250, message: `${b} has a report` },
      )
      .toBe(true);
    await expect
      .poll(async () => (await processesMentioning(stateDir)).filter((p) => p.cmdline.includes('evaluate.mjs')), {
        timeout: 30_000,
        interval: 250,
        message: 'the evaluator has exited',
      })
      .toEqual([]);
    // Once the dead worker's sticky queue has timed out (10 s, the server's timer: seen in the
    // history, not guessed from a clock), the workflow task waits on the normal queue: the new
    // orchestrator takes it with b's report, which lands while the stop cancels.
    await expect
      .poll(timedOutTasks, { timeout: 120_000, interval: 500, message: "the loop's sticky workflow task timed out" })
      .toBeGreaterThan(timedOutBefore);
    await loop.restart('orchestrator');
    const result = await loop.result('crossing');
    const { rows, state } = await loop.ledger('crossing');
    const config = loop.configFor('crossing');
    const folded = stateFromLedger(
      rows.map((row) => JSON.stringify(row)).join('\n'),
      'ledger.jsonl',
      foldSettingsOf(config),
      config.state_dir,
    );
    expect(stateOf(state)).toEqual(stateOf(result.view));
    expect(stateOf(folded)).toEqual(stateOf(result.view));
    // b ran once: recorded now, or waiting for the resumption, never both.
    const recorded = rowsOf(rows, 'run').some((row) => row.run_id === b);
    const queued = result.resume.queue.some((job) => job.jobId === b);
    expect(recorded !== queued).toBe(true);
    console.log(
      `stop --now crossing a report: b ${recorded ? 'recorded' : 'queued for the resumption'}; 2 faults injected, ${rows.length} rows compared`,
    );
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
        const progressed = await loop
          .waitFor('server-kill', (view) => view.round >= 3, 120_000)
          .then(() => Date.now() - restarted);
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
