import path from 'node:path';
import { readFile, writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runIdFor } from '../../src/rules/ids.js';
import type { LoopConfig } from '../../src/config/loop-config.js';
import { loopWorkflowId } from '../../src/workflows/ids.js';
import { stopSignal } from '../../src/workflows/messages.js';
import { copyCaughtUp, expectConsistent, jobsOf, type BoundedLoop } from '../helpers/bounded-loop.js';
import { processesMentioning, rowsOf } from '../helpers/loop-checks.js';
import { createLoopHarness, FIXTURE_COMMANDS, type LoopHarness } from '../helpers/loop-harness.js';
import { stateFromLedger } from '../../src/ledger/from-ledger.js';
import { foldSettingsOf } from '../../src/ledger/loop-state.js';

// A training command that hangs: it makes no progress, but its process lives, so the lane keeps
// heartbeating for it and the heartbeat timeout never fires. What ends it is timeouts.train: each
// attempt is timed out by the server, the lane learns it at its next heartbeat and kills the group;
// retries.train attempts later the run is recorded as train_failed and the loop goes on.
const HUNG = runIdFor(1, 2, 'a');
/** Round 2's other run: it trains after HUNG on the one lane, and round 3 is planned once its job ends. */
const OTHER = runIdFor(1, 2, 'b');
const TRAIN_TIMEOUT = '4s';
const ATTEMPTS = 2;

describe('a training command that hangs', () => {
  let harness: LoopHarness;

  beforeAll(async () => {
    harness = await createLoopHarness({
      candidates: [
        { name: 'a', overrides: { fixture_quality: 0.3 } },
        { name: 'b', overrides: { fixture_quality: 0.7 } },
      ],
      lanes: 1,
    });
  });

  afterAll(async () => {
    await harness?.dispose();
  });

  /**
   * Train with a fault for HUNG (through `env`, no shell), let rounds 1 and 2 run, then empty the
   * candidates: the loop idles. Round 2's other run (`b`, after HUNG on the one lane) is evaluated
   * only once the list is empty (its evaluate command waits for `<loop>.release`), so round 3,
   * planned when that job ends, always reads the empty list, however long HUNG takes to fail.
   */
  async function twoRounds(
    loopId: string,
    fault: string,
    settings: Partial<LoopConfig>,
    /** HUNG's training waits for the release too, before it starts (a slow HUNG could end before the view shows it). */
    holdHung = false,
  ): Promise<BoundedLoop> {
    const candidates = path.join(harness.dir, `${loopId}.candidates.yaml`);
    const release = path.join(harness.dir, `${loopId}.release`);
    await harness.writeCandidates(
      [
        { name: 'a', overrides: { fixture_quality: 0.3 } },
        { name: 'b', overrides: { fixture_quality: 0.7 } },
      ],
      candidates,
    );
    const heldFor = (pattern: string) => [
      'sh',
      '-c',
      `case " $* " in ${pattern}) while [ ! -e '${release}' ]; do sleep 0.1; done;; esac; exec "$@"`,
      'sh',
    ];
    const commands = {
      ...harness.config.commands,
      train: [
        ...(holdHung ? heldFor(`*" ${HUNG} "*`) : []),
        'env',
        `FIXTURE_FAIL_TRAIN=${fault}`,
        ...FIXTURE_COMMANDS.train,
      ],
      // The batch evaluator's jobs file is `<state>/logs/<run id>.<role>.jobs.json`.
      evaluate: [...heldFor(`*"/${OTHER}."*`), ...harness.config.commands.evaluate],
    };
    await harness.startWith(loopId, { candidates, commands, saturation_evals: 1000, ...settings });
    // One lane: HUNG trains (slowly, or hanging) before round 3 can be planned; by then the list is empty.
    await harness.waitFor(loopId, (view) => view.in_flight.some((flight) => flight.jobId === HUNG));
    await harness.writeCandidates('candidates: []\n', candidates);
    await writeFile(release, '');
    await harness.waitFor(loopId, (view) => view.idle && view.in_flight.length === 0 && view.queued === 0, 120_000);
    await harness.client.workflow.getHandle(loopWorkflowId(loopId)).signal(stopSignal);
    const result = await harness.result(loopId);
    const config = harness.configFor(loopId, settings);
    const copy = await copyCaughtUp(harness, loopId, config.state_dir);
    const { rows, state } = await harness.ledger(loopId);
    const folded = stateFromLedger(
      rows.map((row) => JSON.stringify(row)).join('\n'),
      'ledger.jsonl',
      foldSettingsOf(config),
      config.state_dir,
    );
    return { loopId, result, rows, state, folded, copy };
  }

  it('is timed out by timeouts.train, retried per retries.train, recorded as train_failed, its processes killed; the loop goes on', async () => {
    const baseline = await twoRounds('hang-baseline', `slow:${HUNG}`, {}, true);
    // Each hung trainer process, with when it was first and last seen alive.
    const seen = new Map<number, { first: number; last: number }>();
    let watching = true;
    const watch = async () => {
      const runsRoot = harness.configFor('hang').runs_root;
      while (watching) {
        for (const p of await processesMentioning(runsRoot)) {
          if (
            !p.cmdline.includes(`--run-id ${HUNG}`) ||
            !p.cmdline.includes('train.mjs') ||
            p.cmdline.startsWith('env ')
          )
            continue;
          const now = Date.now();
          const entry = seen.get(p.pid);
          seen.set(p.pid, { first: entry?.first ?? now, last: now });
        }
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    };
    const started = Date.now();
    const watcher = watch();
    const hung = await twoRounds('hang', `hang:${HUNG}`, {
      timeouts: { ...harness.config.timeouts, train: TRAIN_TIMEOUT },
      retries: { ...harness.config.retries, train: ATTEMPTS },
    });
    watching = false;
    await watcher;

    const run = rowsOf(hung.rows, 'run').find((row) => row.run_id === HUNG);
    expect(run).toMatchObject({ status: 'train_failed', train_rc: null, checkpoints: [] });
    expect(run?.error).toContain('timeouts.train');
    expect(run?.error).toContain(TRAIN_TIMEOUT);
    // retries.train attempts, each a trainer that started and was killed: none is left.
    const log = await readFile(path.join(harness.configFor('hang').state_dir, 'logs', `${HUNG}.train.log`), 'utf8');
    expect(log.match(/^--- .* train: /gm)).toHaveLength(ATTEMPTS);
    expect(seen.size).toBe(ATTEMPTS);
    // (A package command of a champion may still run: packaging outlives the loop's stop.)
    expect(
      (await processesMentioning(harness.configFor('hang').runs_root)).filter((p) => p.cmdline.includes('train.mjs')),
    ).toEqual([]);
    const lifetimes = [...seen.values()].map((entry) => entry.last - entry.first);
    // Each was killed before the next attempt's trainer started (the one lane's slot is freed by
    // the kill): a timed-out attempt leaves nothing running beside its retry.
    const attempts = [...seen.values()].sort((x, y) => x.first - y.first);
    for (let index = 1; index < attempts.length; index += 1)
      expect(attempts[index - 1]?.last ?? Infinity).toBeLessThan(attempts[index]?.first ?? -Infinity);

    // Everything else is as in the loop whose HUNG merely trained slowly: the other runs, all their evals.
    expectConsistent(baseline);
    expectConsistent(hung);
    const expected = jobsOf(baseline.rows);
    const withoutHung = (list: string[]) =>
      list.filter((line) => !line.startsWith(`${HUNG} `) && !line.startsWith(`${HUNG}/`));
    const actual = jobsOf(hung.rows);
    expect(withoutHung(actual.runs)).toEqual(withoutHung(expected.runs));
    expect(withoutHung(actual.evals)).toEqual(withoutHung(expected.evals));
    expect(actual.evals.filter((line) => line.startsWith(`${HUNG}/`))).toEqual([]);
    // The loop went on after it: round 2's other run trained after HUNG failed.
    const other = rowsOf(hung.rows, 'run').find((row) => row.run_id === OTHER);
    expect(other?.status).toBe('trained');
    expect(Date.parse(other?.finished ?? '')).toBeGreaterThan(Date.parse(run?.finished ?? ''));
    console.log(
      `hung training: ${ATTEMPTS} attempts timed out after ${TRAIN_TIMEOUT} each, trainers lived ${lifetimes.join(', ')} ms; ` +
        `recorded as train_failed ("${run?.error}") ${Date.parse(run?.finished ?? '') - started} ms after the start`,
    );
    // The others compared with the undisturbed loop's, and HUNG's own row checked above.
    const compared = withoutHung(expected.runs).length + withoutHung(expected.evals).length + 1;
    console.log(`hung training: ${ATTEMPTS} faults injected, ${compared} rows compared`);
  });
});
