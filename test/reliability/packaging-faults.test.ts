import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { LoopConfig } from '../../src/config/loop-config.js';
import type { ChampionRow, LedgerRow, PackageRow } from '../../src/ledger/rows.js';
import { loopWorkflowId, packagingWorkflowId } from '../../src/workflows/ids.js';
import { advanceSignal, packagingQuery, stopNowSignal, stopSignal } from '../../src/workflows/messages.js';
import { packagingIdle, processesMentioning, rowsOf, stateOf } from '../helpers/loop-checks.js';
import { createLoopHarness, FIXTURE_COMMANDS, type LoopHarness } from '../helpers/loop-harness.js';

// The package command failing, hanging, and champions arriving faster than it packages them:
// every champion is handed over once and ends as exactly one of launched+finished, launch_failed
// or dropped, in the exported ledger.

describe('packaging faults', () => {
  let harness: LoopHarness;

  beforeAll(async () => {
    harness = await createLoopHarness({
      candidates: [
        { name: 'a', overrides: { fixture_quality: 0.2 } },
        { name: 'b', overrides: { fixture_quality: 0.5 } },
        { name: 'c', overrides: { fixture_quality: 0.8 } },
      ],
      lanes: 1,
    });
  });

  afterAll(async () => {
    await harness?.dispose();
  });

  /** The package command with fixture variables set through `env` (an argument list: no shell). */
  const packageWith = (...variables: string[]): LoopConfig['commands'] => ({
    ...harness.config.commands,
    package: ['env', ...variables, ...FIXTURE_COMMANDS.package],
  });

  /** Stop the loop, wait for packaging to settle, and read the ledger. */
  async function stopAndRead(loopId: string) {
    await harness.client.workflow.getHandle(loopWorkflowId(loopId)).signal(stopSignal);
    const result = await harness.result(loopId);
    await packagingIdle(harness.client, loopId);
    const { rows, state } = await harness.ledger(loopId);
    expect(stateOf(state)).toEqual(stateOf(result.view));
    return rows;
  }

  /** Each champion's package rows, in order: every champion ends as exactly one outcome. */
  function outcomes(rows: readonly LedgerRow[]): { champion: ChampionRow; rows: PackageRow[] }[] {
    const packages = rowsOf(rows, 'package');
    const champions = rowsOf(rows, 'champion');
    const same = (row: PackageRow, champion: ChampionRow) =>
      row.generation === champion.generation &&
      row.run_id === champion.champion.run_id &&
      row.checkpoint_name === champion.champion.checkpoint_name;
    for (const row of packages)
      expect(
        champions.some((champion) => same(row, champion)),
        `package row of no champion: ${JSON.stringify(row)}`,
      ).toBe(true);
    return champions.map((champion) => ({ champion, rows: packages.filter((row) => same(row, champion)) }));
  }

  const events = (rows: readonly PackageRow[]) => rows.map((row) => row.event).join('+');

  const key = (champion: { run_id: string; checkpoint_name: string } | null | undefined) =>
    champion ? `${champion.run_id}/${champion.checkpoint_name}` : null;

  it('a package command that exits non-zero is recorded with its exit code, for every champion, and the loop goes on', async () => {
    await harness.startWith('pkg-fail', { commands: packageWith('FIXTURE_FAIL_PACKAGE=fail'), saturation_evals: 1000 });
    await harness.waitFor('pkg-fail', (view) => view.round >= 3);
    const rows = await stopAndRead('pkg-fail');
    const each = outcomes(rows);
    expect(each.length).toBeGreaterThanOrEqual(1);
    for (const { rows: packageRows } of each) expect(['launched+finished', 'dropped']).toContain(events(packageRows));
    const finished = rowsOf(rows, 'package').filter((row) => row.event === 'finished');
    expect(finished.length).toBeGreaterThanOrEqual(1);
    expect(finished.every((row) => row.exit_code === 3)).toBe(true);
    const launched = rowsOf(rows, 'package').find((row) => row.event === 'launched');
    expect(await readFile(launched?.log ?? '', 'utf8')).toContain('package: injected failure');
    console.log(
      `package command failing: ${finished.length} faults injected, ${each.length} champions' package rows compared`,
    );
  });

  it('a hanging package command is timed out (timeouts.package) and recorded; champions arriving meanwhile queue, the newest wins, the others are recorded as dropped; the next champion still packages', async () => {
    // Generation 1's package command hangs until its 10 s limit; later generations' work. The test
    // makes the champions of two advances queue behind it rather than hoping they come within the
    // 10 s: the limit is Temporal's start-to-close timeout, which runs from when the one package
    // worker slot (maxConcurrentActivityTaskExecutions: 1) takes the activity. Another loop's
    // package command holds that slot, waiting on a file, until the two advances' champions are
    // queued behind generation 1's; only then is the hang started (and its 10 s with it).
    const gate = path.join(await mkdtemp(path.join(tmpdir(), 'champion-loop-pkg-gate-')), 'release');
    await harness.startWith('pkg-hold', {
      commands: packageWith(`FIXTURE_PACKAGE_WAIT_FILE=${gate}`),
      saturation_evals: 1000,
    });
    await harness.waitFor('pkg-hold', (view) => view.champion !== null);
    // Its package command runs (holding the slot), and its loop stops making work for the one lane.
    await vi.waitFor(
      async () => {
        const running = (await processesMentioning(harness.configFor('pkg-hold').state_dir)).filter((p) =>
          p.cmdline.includes('package.mjs'),
        );
        if (running.length === 0) throw new Error("pkg-hold's package command has not started yet");
      },
      { timeout: 120_000, interval: 200 },
    );
    await harness.client.workflow.getHandle(loopWorkflowId('pkg-hold')).signal(stopSignal);

    await harness.startWith('pkg-hang', {
      commands: packageWith('FIXTURE_FAIL_PACKAGE=hang:1'),
      timeouts: { ...harness.config.timeouts, package: '10s' },
      saturation_evals: 1000,
    });
    const handle = harness.client.workflow.getHandle(loopWorkflowId('pkg-hang'));
    const packaging = harness.client.workflow.getHandle(packagingWorkflowId('pkg-hang'));
    await harness.waitFor('pkg-hang', (view) => view.champion !== null);
    for (const generation of [2, 3]) {
      await handle.signal(advanceSignal, `packaging drill ${generation}`);
      await harness.waitFor('pkg-hang', (view) => view.generation === generation && view.champion !== null);
    }
    // Generation 3's champion waits in the queue behind generation 1's: everything in between was replaced.
    await vi.waitFor(
      async () => {
        const [view, queue] = await Promise.all([harness.view('pkg-hang'), packaging.query(packagingQuery)]);
        if (queue.running?.generation !== 1 || key(queue.queued) !== key(view.champion))
          throw new Error(`generation 3's champion not queued yet: ${JSON.stringify(queue)}`);
      },
      { timeout: 60_000, interval: 200 },
    );
    await writeFile(gate, '');
    await harness.result('pkg-hold');
    const rows = await stopAndRead('pkg-hang');
    const each = outcomes(rows);
    const first = each.filter(({ champion }) => champion.generation === 1);
    const later = each.filter(({ champion }) => champion.generation > 1);
    // The first champion's command hung until its limit; the champions of generation 1 queued behind it were replaced.
    expect(events(first[0]?.rows ?? [])).toBe('launch_failed');
    expect(first[0]?.rows[0]?.error).toContain('timed out: no result within 10s (loop.yaml timeouts.package)');
    for (const { rows: packageRows } of first.slice(1)) expect(events(packageRows)).toBe('dropped');
    // Newest queued wins: of everything that arrived while it hung, all but the last are dropped.
    const dropped = each.filter(({ rows: r }) => events(r) === 'dropped');
    expect(dropped.length).toBeGreaterThanOrEqual(1);
    for (const { rows: packageRows } of later) expect(['launched+finished', 'dropped']).toContain(events(packageRows));
    const finished = rowsOf(rows, 'package').filter((row) => row.event === 'finished');
    expect(finished.length).toBeGreaterThanOrEqual(1);
    expect(finished.every((row) => row.exit_code === 0 && row.generation > 1)).toBe(true);
    // The last champion of all is packaged: it was never replaced.
    expect(events(each.at(-1)?.rows ?? [])).toBe('launched+finished');
    // The hung package command was killed.
    expect(
      (await processesMentioning(harness.configFor('pkg-hang').state_dir)).filter((p) =>
        p.cmdline.includes('package.mjs'),
      ),
    ).toEqual([]);
    console.log(
      each
        .map(
          ({ champion, rows: r }) =>
            `  generation ${champion.generation} ${champion.champion.run_id}/${champion.champion.checkpoint_name}: ${events(r)}`,
        )
        .join('\n'),
    );
    console.log(
      `package command hanging: 1 fault injected (${dropped.length} dropped), ${each.length} champions' package rows compared`,
    );
  }, 300_000);

  it('a stop at once records the killed package command and the queued champion as launch_failed, and the resumed loop packages the champion', async () => {
    // Generation 1's package command hangs; an advance brings a champion of generation 2 that queues behind it.
    await harness.startWith('pkg-now', {
      commands: packageWith('FIXTURE_FAIL_PACKAGE=hang:1'),
      saturation_evals: 1000,
    });
    const handle = harness.client.workflow.getHandle(loopWorkflowId('pkg-now'));
    const packaging = harness.client.workflow.getHandle(packagingWorkflowId('pkg-now'));
    await harness.waitFor('pkg-now', (view) => view.champion !== null);
    await handle.signal(advanceSignal, 'a champion to queue');
    await harness.waitFor('pkg-now', (view) => view.generation === 2 && view.champion !== null);
    // Stop once the champion of the moment waits in the queue behind the hanging command.
    await vi.waitFor(
      async () => {
        const [view, queue] = await Promise.all([harness.view('pkg-now'), packaging.query(packagingQuery)]);
        if (queue.running?.generation !== 1 || key(queue.queued) !== key(view.champion))
          throw new Error(`champion not queued yet: ${JSON.stringify(queue)}`);
      },
      { timeout: 60_000, interval: 200 },
    );
    await handle.signal(stopNowSignal);
    const result = await harness.result('pkg-now');
    const champion = key(result.view.champion);
    // The champion of the stop was never packaged: the carry hands it to packaging on resume.
    expect(result.resume.unpackaged.map(key)).toContain(champion);
    await expect
      .poll(
        async () =>
          (await processesMentioning(harness.configFor('pkg-now').state_dir)).filter((p) =>
            p.cmdline.includes('package.mjs'),
          ),
        { timeout: 30_000 },
      )
      .toEqual([]);

    const stopped = outcomes((await harness.ledger('pkg-now')).rows);
    // The first champion's command hung until the stop killed it; the one queued behind it never ran.
    expect(events(stopped[0]?.rows ?? [])).toBe('launch_failed');
    expect(stopped[0]?.rows[0]?.error).toBe(
      'stopped at once (stop --now): the package command was cancelled and killed before it finished',
    );
    const queued = rowsOf((await harness.ledger('pkg-now')).rows, 'package').filter((row) =>
      row.error?.includes('while queued'),
    );
    expect(queued).toHaveLength(1);
    expect(queued[0]?.generation).toBe(2);
    const carried = new Set(result.resume.unpackaged.map(key));
    for (const { champion: row, rows: packageRows } of stopped.slice(1)) {
      expect(['launch_failed', 'dropped', ...(carried.has(key(row.champion)) ? ['', 'launch_failed'] : [])]).toContain(
        events(packageRows),
      );
    }

    // Resumed, the loop packages the champion of the stop (generation 2: its command does not hang).
    expect(
      (
        await harness.startWith('pkg-now', {
          commands: packageWith('FIXTURE_FAIL_PACKAGE=hang:1'),
          saturation_evals: 1000,
        })
      ).kind,
    ).toBe('resumed');
    await vi.waitFor(
      async () => {
        const rows = rowsOf((await harness.ledger('pkg-now')).rows, 'package').filter((row) => key(row) === champion);
        if (!rows.some((row) => row.event === 'finished'))
          throw new Error(`champion ${champion} not packaged yet: ${events(rows)}`);
      },
      { timeout: 60_000, interval: 500 },
    );
    const after = outcomes(await stopAndRead('pkg-now'));
    const packaged = after.filter(({ champion: row }) => key(row.champion) === champion && row.generation === 2).at(-1);
    expect(events(packaged?.rows ?? [])).toMatch(/^(launch_failed\+)?launched\+finished$/);
    expect(packaged?.rows.find((row) => row.event === 'finished')?.exit_code).toBe(0);
    console.log(
      after
        .map(({ champion: row, rows: r }) => `  generation ${row.generation} ${key(row.champion)}: ${events(r)}`)
        .join('\n'),
    );
  });
});
