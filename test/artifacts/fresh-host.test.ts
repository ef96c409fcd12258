// A loop whose ledger copy is mirrored to the artifact store (loop.yaml artifacts:) goes on on a
// host that never saw it: another Temporal server (no history of the loop at all), an empty
// state dir, the first host's folders deleted. Real dev servers, workers, fixture stack and store.
import { readFile, writeFile } from 'node:fs/promises';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { mirrorKeys } from '../../src/artifacts/ledger-mirror.js';
import { ObjectStore } from '../../src/artifacts/object-store.js';
import type { LoopConfig } from '../../src/config/loop-config.js';
import { ledgerCopyPath, readLedgerCopy } from '../../src/ledger-copy/copy-files.js';
import type { LedgerRow } from '../../src/ledger/rows.js';
import { loopWorkflowId } from '../../src/workflows/ids.js';
import { stopSignal } from '../../src/workflows/messages.js';
import { copyCaughtUp, copyHoldsHistory } from '../helpers/bounded-loop.js';
import { expectEachRunAndEvalOnce, processesMentioning, rowsOf } from '../helpers/loop-checks.js';
import { championLoopAt } from '../client/champion-loop-cli.js';
import { fetchPackage } from '../../src/artifacts/package-store.js';
import path from 'node:path';
import { createLoopHarness, type LoopHarness } from '../helpers/loop-harness.js';
import { storeForFile } from '../helpers/object-store.js';

const CANDIDATES = [{ name: 'base' }, { name: 'wide', overrides: { fixture_quality: 0.7 } }];
/** Generation 2 opens once generation 1 had its one reserve check (after 8 test evals). */
const SETTINGS: Partial<LoopConfig> = { saturation_evals: 8, max_reserve_checks: 1 };

describe('a loop mirrored to the artifact store, started on a host that never saw it', () => {
  let first: LoopHarness | undefined;
  let second: LoopHarness | undefined;
  let third: LoopHarness | undefined;
  const fleetStore = storeForFile(async () => {
    await first?.dispose();
    await second?.dispose();
    await third?.dispose();
  });

  it('fetches the mirrored ledger copy into its empty state dir and goes on in the same generation with the same champion', async () => {
    const loopId = 'fleet';
    first = await createLoopHarness({ candidates: CANDIDATES });
    expect((await first.startWith(loopId, { ...SETTINGS, artifacts: fleetStore.artifacts })).kind).toBe('started');
    await first.waitFor(loopId, (view) => view.generation === 2 && view.round >= 1, 180_000);
    await first.client.workflow.getHandle(loopWorkflowId(loopId)).signal(stopSignal);
    const stopped = await first.result(loopId);
    const stateDir = first.configFor(loopId).state_dir;
    await copyCaughtUp(first, loopId, stateDir);

    // The store's copy catches up with the local one (mirrored at most every 10 s).
    const store = new ObjectStore(fleetStore.artifacts);
    const keys = mirrorKeys(store, loopId);
    // The keeper may still append (a last package row): each poll compares the store with the copy as it is then.
    await vi.waitFor(
      async () => expect(await store.getText(keys.ledger)).toBe(await readFile(ledgerCopyPath(stateDir), 'utf8')),
      { timeout: 60_000, interval: 500 },
    );
    expect(JSON.parse((await store.getText(keys.state)) ?? '{}')).toMatchObject({ generation: 2 });
    store.close();
    const before = await readLedgerCopy(stateDir);

    // The first host goes away with its disk: its server, workers and folders.
    await first.dispose();
    first = undefined;

    second = await createLoopHarness({ candidates: CANDIDATES });
    const again = await second.startWith(loopId, { ...SETTINGS, artifacts: fleetStore.artifacts });
    expect(again.kind).toBe('resumed');
    expect(again.kind === 'resumed' && again.from).toMatch(
      new RegExp(
        `ledger copy in .* \\(${before.length} rows, fetched from s3://fleet/gate/ledgers/fleet/ledger.jsonl; no history`,
      ),
    );
    expect(again.kind === 'resumed' && again.generation).toBe(2);
    const view = await second.view(loopId);
    expect(view.generation).toBe(2);
    expect(view.champion?.run_id).toBe(stopped.view.champion?.run_id);
    expect(view.champion?.checkpoint_name).toBe(stopped.view.champion?.checkpoint_name);

    // It goes on there: another round of generation 2 (the ledger keeper sees it running), then a clean stop.
    await second.waitFor(loopId, (now) => now.generation > 2 || now.round >= view.round + 1, 180_000);
    await second.client.workflow.getHandle(loopWorkflowId(loopId)).signal(stopSignal);
    await second.result(loopId);
    const secondDir = second.configFor(loopId).state_dir;
    await copyHoldsHistory(second, loopId, secondDir);
    const after = await readLedgerCopy(secondDir);
    // The second host's copy starts with every row of the first's, and no run or eval is there twice.
    const notPackage = (rows: readonly LedgerRow[]) => rows.filter((row) => row.type !== 'package');
    expect(notPackage(after).slice(0, notPackage(before).length)).toEqual(notPackage(before));
    expectEachRunAndEvalOnce(after, 'the second host');
  }, 600_000);

  it('with the store down, a made package waits for it, status says so, and it lands once the store is back', async () => {
    const loopId = 'storeless';
    // The package command waits for a file the test writes once the store is gone: the store goes
    // away while it runs, after the champion's training and evaluation went through the store
    // (with the store down no run trains).
    third = await createLoopHarness({ candidates: CANDIDATES });
    const packageGo = path.join(third.dir, 'package-go');
    process.env.FIXTURE_PACKAGE_WAIT_FILE = packageGo;
    onTestFinished(() => {
      delete process.env.FIXTURE_PACKAGE_WAIT_FILE;
    });
    expect((await third.startWith(loopId, { ...SETTINGS, artifacts: fleetStore.artifacts })).kind).toBe('started');
    await vi.waitFor(
      async () =>
        expect(
          (await processesMentioning(`loops/${loopId}/`)).filter((found) => found.cmdline.includes('package.mjs')),
        ).not.toEqual([]),
      { timeout: 180_000, interval: 100 },
    );
    await fleetStore.server.kill();
    await writeFile(packageGo, '');
    // A loop with no history and no copy is not started afresh while the store cannot say whether it mirrors one.
    await expect(third.startWith('another', { ...SETTINGS, artifacts: fleetStore.artifacts })).rejects.toThrow(
      /cannot look up s3:\/\/fleet\/gate\/ledgers\/another\/ledger.jsonl.*start looks in the artifact store .* Nothing started/,
    );
    const status = await vi.waitFor(
      async () => {
        const out = await championLoopAt(third?.server ?? { address: '', namespace: '' }, ['status', loopId]);
        expect(out.stdout).toMatch(
          /^packaging: the package is made, and its upload waits for the artifact store: artifact store: .*trying again in \d+ s$/m,
        );
        return String(out.stdout);
      },
      { timeout: 120_000, interval: 1_000 },
    );
    // Each job in flight waits for the store, and status names it: a lane step to take its files,
    // or (a run dispatched after the store went) the run's workflow to take its job inputs.
    await vi.waitFor(
      async () => {
        const out = await championLoopAt(third?.server ?? { address: '', namespace: '' }, ['status', loopId]);
        expect(out.stdout).toMatch(
          /^store: champ-g001-r\d{4}-\w+(?: on champion-loop\.test\.gpu\d waits to (?:upload|fetch)|: the run's job inputs wait for the artifact store): artifact store: .*trying again in \d+ s$/m,
        );
      },
      { timeout: 120_000, interval: 1_000 },
    );
    const [, run, checkpoint] =
      new RegExp(`s3://fleet/gate/packages/${loopId}/g001/([^/]+)/([^/:]+)/`).exec(status) ?? [];
    expect(run).toBeDefined();
    // Nothing is recorded as packaged before its upload finished.
    const waiting = rowsOf((await third.ledger(loopId)).rows, 'package');
    expect(waiting.filter((row) => row.run_id === run && row.checkpoint_name === checkpoint)).toEqual([]);

    await fleetStore.server.restart();
    const finished = await vi.waitFor(
      async () => {
        const rows = rowsOf((await third!.ledger(loopId)).rows, 'package').filter((row) => row.event === 'finished');
        expect(rows.filter((row) => row.run_id === run && row.checkpoint_name === checkpoint)).toHaveLength(1);
        return rows.filter((row) => row.run_id === run && row.checkpoint_name === checkpoint);
      },
      { timeout: 180_000, interval: 1_000 },
    );
    expect(finished[0]?.exit_code).toBe(0);
    const uri = finished[0]?.package_uri ?? '';
    expect(uri).toMatch(new RegExp(`^s3://fleet/gate/packages/${loopId}/g001/`));
    const store = new ObjectStore(fleetStore.artifacts);
    expect((await fetchPackage(store, uri, path.join(third.dir, 'fetched'))).files).toBeGreaterThan(0);
    store.close();
    await third.client.workflow.getHandle(loopWorkflowId(loopId)).signal(stopSignal);
    await third.result(loopId);
  }, 600_000);
});
