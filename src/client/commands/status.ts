// champion-loop status: one command of the CLI (src/client/main.ts adds them all).
import type { Command } from 'commander';
import type { ConnectionFlags } from '../connect.js';
import { NoSuchLoopError } from '../no-such-loop.js';
import { exportLedger, lastLoopState, ledgerSources } from '../ledger-export.js';
import { loopState, type LoopStatus } from '../loop-look.js';
import { packagingLines, packagingView } from '../packaging-control.js';
import { describeNoPoller, type LoopQueue } from '../pollers.js';
import type { LoopView } from '../../workflows/loop-view.js';
import { renderStatus, renderStoppedState } from '../render-status.js';
import { notifyProblems } from '../../notify/problems.js';
import { copyRepairsLine, copyRepairsSeen } from '../copy-repairs.js';
import { registryLine } from '../registry-words.js';
import { flightActivities, memoryWaitLines, storeWaitLines } from '../step-waits.js';
import { jobsOnDevices } from '../lane-devices.js';
import { deviceJson, deviceLines, laneDevices } from '../render-devices.js';
import { pausedLine, pausedTrainings } from '../training-pause.js';
import { testReuse } from '../../rules/test-reuse.js';
import { connectionOptions, withClient, copyOf } from './shared.js';

/** `champion-loop status`. */
export function addStatusCommand(program: Command): void {
  connectionOptions(
    program
      .command('status')
      .description(
        "a loop's state: generation, round, champion, Pareto set, reserve checks, lanes (a loop that is not running: its last state)",
      )
      .argument('<loop-id>')
      .option('--json', 'print the state query as JSON')
      .option(
        '-c, --config <loop.yaml>',
        "the loop's settings: where its ledger copy is when no history of it is left",
      ),
  ).action(async (loopId: string, options: StatusFlags) => {
    await withClient(options, async (client) => {
      let status: LoopStatus;
      try {
        status = await loopState(client, loopId);
      } catch (error) {
        if (!(error instanceof NoSuchLoopError) || options.config === undefined) throw error;
        await printWithoutHistory(client, loopId, options, error);
        return;
      }
      if (status.kind === 'running' && status.view)
        await printRunning(client, loopId, options, status.noPoller, status.view);
      else if (status.kind === 'running') await printUnanswered(client, loopId, options, status);
      else await printStopped(client, loopId, options, status.ended);
    });
  });
}

type StatusFlags = ConnectionFlags & { json?: boolean; config?: string };
type StatusClient = Parameters<Parameters<typeof withClient>[1]>[0];

/** No history left at all (retention, delete, a new server): the last state from the copy. */
async function printWithoutHistory(
  client: StatusClient,
  loopId: string,
  options: StatusFlags,
  error: unknown,
): Promise<void> {
  const ledger = await exportLedger(client, loopId, await copyOf(options.config!), { upToDamage: true });
  if (ledger.rows.length === 0) throw error;
  if (options.json) {
    console.log(JSON.stringify({ running: false, ended: 'no history left', ...ledger.state }, null, 2));
    return;
  }
  console.log(
    `loop ${loopId} has no history left; its last state from the ledger copy in ${ledger.stateDir ?? '?'} ('champion-loop start' goes on from here):`,
  );
  console.log(renderStoppedState(ledger.state));
  const note = ledgerSources(ledger);
  if (note) console.log(`note: ${note}`);
}

/** A running loop that answered: its view, and every line of what it waits for or lacks. */
async function printRunning(
  client: StatusClient,
  loopId: string,
  options: StatusFlags,
  unpolled: readonly LoopQueue[],
  view: LoopView,
): Promise<void> {
  const noPoller = unpolled.map(describeNoPoller);
  // notify.json is the orchestrator's: readable here when this CLI shares its file system.
  const notify = view.state_dir ? await notifyProblems(view.state_dir) : [];
  const repairs = view.state_dir ? await copyRepairsSeen(view.state_dir) : null;
  const packaging = await packagingView(client, loopId);
  const registry = packaging?.registry;
  const registered = registryLine(registry);
  const { ended: packagingEnded, upload } = await packagingLines(client, loopId);
  // Each in-flight job's activities, read once for the store waits, the memory waits and the devices.
  const flights = await flightActivities(client, view);
  const storeWaits = await storeWaitLines(client, view, flights);
  const memoryWaits = memoryWaitLines(client, flights);
  const devices = laneDevices(jobsOnDevices(client, flights));
  const paused = await pausedTrainings(client, view);
  console.log(
    options.json
      ? JSON.stringify(
          {
            ...view,
            test_reuse: testReuse(view.test_evals, view.champion),
            ...(noPoller.length > 0 ? { no_poller: noPoller } : {}),
            ...(notify.length > 0 ? { notify_problems: notify } : {}),
            ...(repairs ? { copy_repairs: repairs } : {}),
            ...(registry ? { registry } : {}),
            ...(packagingEnded ? { packaging_ended: packagingEnded } : {}),
            ...(upload ? { package_upload: upload } : {}),
            ...(storeWaits.length > 0 ? { store_waits: storeWaits } : {}),
            ...(memoryWaits.length > 0 ? { memory_waits: memoryWaits } : {}),
            ...(devices.length > 0 ? { lane_devices: deviceJson(devices) } : {}),
            ...(paused.length > 0 ? { paused_trainings: paused } : {}),
          },
          null,
          2,
        )
      : [
          renderStatus(view),
          ...deviceLines(devices, new Date()),
          ...noPoller,
          ...notify,
          ...(repairs ? [copyRepairsLine(repairs)] : []),
          ...(registered ? [registered] : []),
          ...(packagingEnded ? [packagingEnded] : []),
          ...(upload ? [upload] : []),
          ...storeWaits,
          ...memoryWaits,
          ...paused.map((one) => pausedLine(loopId, one)),
        ].join('\n'),
  );
}

/** A running loop nobody answers for: why, and its state as history holds it. */
async function printUnanswered(
  client: StatusClient,
  loopId: string,
  options: StatusFlags,
  status: Extract<LoopStatus, { kind: 'running' }>,
): Promise<void> {
  // No orchestrator polls: nobody can answer the state query; what history holds instead.
  const ledger = await lastLoopState(client, loopId);
  const noPoller = status.noPoller.map(describeNoPoller);
  const why = status.unanswered ?? 'no orchestrator worker polls its task queue (none seen in the last 90 s)';
  if (options.json) {
    console.log(JSON.stringify({ running: true, answered: false, why, no_poller: noPoller, ...ledger.state }, null, 2));
    return;
  }
  console.log(`loop ${loopId} is running but cannot answer: ${why}`);
  for (const line of noPoller) console.log(line);
  console.log(`its state as history holds it:\n${renderStoppedState(ledger.state)}`);
}

/** Not running: its last state from history (the ledger copy only once history is gone). */
async function printStopped(client: StatusClient, loopId: string, options: StatusFlags, ended: string): Promise<void> {
  // Not running: its last state from history (the ledger copy only once history is gone).
  const ledger = await lastLoopState(client, loopId);
  const { note } = ledger;
  const repairs = await copyRepairsSeen(ledger.stateDir);
  if (options.json) {
    console.log(
      JSON.stringify(
        { running: false, ended: ended, ...ledger.state, ...(repairs ? { copy_repairs: repairs } : {}) },
        null,
        2,
      ),
    );
    return;
  }
  console.log(`loop ${loopId} is not running (its last run ${ended}); 'champion-loop start' goes on from here`);
  console.log(renderStoppedState(ledger.state));
  if (note) console.log(`note: ${note}`);
  if (repairs) console.log(copyRepairsLine(repairs));
}
