// `npm run demo`: the main job. Starts (or reuses) the local Temporal dev server with its Web UI,
// the workers (two CPU lanes, the orchestrator, the package worker), and the loop `demo` on the
// spam-gate example stack; shows live progress until a generation has turned over and a
// champion is packaged; then stops the loop and its workers and returns the prompt (the dev server
// stays up in the background for the UI). A loop terminated or cancelled under it (Web UI, the
// `temporal` CLI) ends it with one line saying so and exit code 1. Running it again resumes the
// same loop where it was; it never starts a second one.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa, type ResultPromise } from 'execa';
import { cliHint } from '../src/client/cli-hint.js';
import { connectClient } from '../src/client/connect.js';
import { exportLedger } from '../src/client/ledger-export.js';
import { loopClosed, loopEndedLine, loopResult, type LoopEnd } from '../src/client/loop-end.js';
import { startLoop } from '../src/client/loop-start.js';
import { stopLoop } from '../src/client/loop-updates.js';
import { packagingSettled } from '../src/client/packaging-control.js';
import { configQueues, waitForPollers } from '../src/client/pollers.js';
import { watchLoop } from '../src/client/watch.js';
import { durationMs } from '../src/config/duration.js';
import { loadLoopConfig } from '../src/config/load-loop-config.js';
import { ensureBackgroundDevServer } from '../src/devserver/background.js';
import { PROJECT_ROOT } from '../src/devserver/project-root.js';
import type { GenerationResult } from '../src/workflows/generation.js';
import type { LedgerRow, PackageRow, ReserveCheckRow } from '../src/ledger/rows.js';
import { ALPHA } from '../src/rules/constants.js';

const LOOP_ID = 'demo';
const CONFIG = path.join(PROJECT_ROOT, 'examples', 'spam-gate', 'loop.yaml');
const LOGS = path.join(PROJECT_ROOT, '.temporal', 'demo');
const say = (line: string) => console.log(`[demo] ${line}`);

say('provisioning the Temporal CLI and the dev server...');
const server = await ensureBackgroundDevServer((line) => say(line));
say(
  `${server.started ? 'started' : 'reusing'} the Temporal dev server at ${server.address} (namespace ${server.namespace})`,
);
say(
  `Web UI: ${server.uiUrl}/namespaces/${server.namespace}/workflows?query=${encodeURIComponent(`LoopId="${LOOP_ID}"`)}`,
);

const config = await loadLoopConfig(CONFIG);
const env = { TEMPORAL_ADDRESS: server.address, TEMPORAL_NAMESPACE: server.namespace };
await mkdir(LOGS, { recursive: true });
const bin = path.join(PROJECT_ROOT, 'bin', 'champion-loop.js');
const workerNames: string[] = [];
const workers: ResultPromise[] = [
  ['orchestrator', ['worker', 'orchestrator']],
  ...config.lanes.map(
    (lane) =>
      [
        `lane-${lane.device}`,
        // The lane's capacity comes from its entry in the loop's loop.yaml, as on a GPU box.
        ['worker', 'gpu', '--cpu', '--config', CONFIG, '--host', lane.host, '--device', String(lane.device)],
      ] as const,
  ),
  ['package', ['worker', 'package']],
].map(([name, args]) => {
  const log = path.join(LOGS, `${name as string}.log`);
  workerNames.push(name as string);
  return execa(process.execPath, [bin, ...(args as string[])], {
    env,
    stdout: { file: log },
    stderr: { file: log },
    reject: false,
    cleanup: true,
  });
});
say(
  `workers started: orchestrator, ${config.lanes.length} CPU lanes, package (logs in ${path.relative(PROJECT_ROOT, LOGS)}/)`,
);

const { client, connection } = await connectClient({ address: server.address, namespace: server.namespace });
const stopWorkers = async () => {
  for (const worker of workers) worker.kill('SIGTERM');
  await Promise.allSettled(workers);
};
process.once('SIGINT', () => {
  say('interrupted: the loop keeps its state in Temporal; `npm run demo` picks it up again');
  void stopWorkers().then(() => process.exit(130));
});

// The watch below names every queue nobody polls: wait for the workers just started first (the
// orchestrator bundles its workflows for a few seconds), so its first lines are not false alarms.
await waitForPollers(client, configQueues(config), {
  gone: () => {
    const index = workers.findIndex((worker) => worker.exitCode !== null);
    if (index < 0) return null;
    const name = workerNames[index] ?? '?';
    return `the ${name} worker exited (code ${String(workers[index]?.exitCode)}) before it polled: see ${path.relative(PROJECT_ROOT, path.join(LOGS, `${name}.log`))}`;
  },
}).catch(async (error: Error) => {
  say(error.message);
  await stopWorkers();
  process.exit(1);
});
say('every worker polls its task queue');

const outcome = await startLoop(client, LOOP_ID, config);
const startGeneration =
  outcome.kind === 'resumed'
    ? outcome.generation
    : outcome.kind === 'already-running'
      ? (outcome.view?.generation ?? 1)
      : 1;
say(
  outcome.kind === 'started'
    ? `started loop ${LOOP_ID} (workflow ${outcome.workflowId})`
    : outcome.kind === 'resumed'
      ? `resumed loop ${LOOP_ID} in generation ${outcome.generation}`
      : `loop ${LOOP_ID} is already running; watching it`,
);
say(
  `state dir ${path.relative(PROJECT_ROOT, config.state_dir)}; follow along in another terminal: ${cliHint(`./bin/champion-loop.js status ${LOOP_ID}`, server.address, server.namespace)}`,
);

async function packagedAfter(since: number): Promise<PackageRow | undefined> {
  const { rows } = await exportLedger(client, LOOP_ID);
  return rows
    .filter(
      (row): row is PackageRow =>
        row.type === 'package' && row.event === 'finished' && row.exit_code === 0 && row.generation >= since,
    )
    .pop();
}

// Progress until the generation we started in has ended and some champion of it is packaged, or
// the loop ends under us (terminated, cancelled, stopped from elsewhere). A watch that lost sight
// of a loop that still runs (a query timed out) watches again.
let done = false;
let ended: LoopEnd | null = null;
while (!done && ended === null) {
  let lost: Error | undefined;
  await watchLoop(client, LOOP_ID, {
    out: process.stdout,
    saturationEvals: config.saturation_evals,
    until: (view) => {
      if (view.generation > startGeneration && !done)
        void packagedAfter(startGeneration).then((row) => (done = row !== undefined));
      return done;
    },
    onLost: (error) => (lost = error),
  }).catch((error: Error) => (lost = error));
  if (done) break;
  ended = await loopClosed(client, LOOP_ID);
  if (ended === null) {
    say(`lost sight of loop ${LOOP_ID} (${lost?.message ?? 'no answer'}); watching again`);
    await sleep(1_000);
  }
}

if (ended === null) {
  say('generation finished and a champion packaged; stopping the loop (running jobs finish first)...');
  await stopLoop(client, { loopId: LOOP_ID, now: false }).catch(() => undefined);
  ended = await loopResult(client, LOOP_ID);
  // A champion of the loop's last moments may still be packaging: let it finish before the
  // package worker stops (stopped mid-way, it would be a launch_failed row until the next run).
  const unfinished = await packagingSettled(client, LOOP_ID, {
    deadlineMs: Date.now() + durationMs(config.timeouts.package),
    say,
  });
  if (unfinished !== null)
    say(
      `the package of ${unfinished.run_id} ${unfinished.checkpoint_name} did not finish within timeouts.package; ` +
        'stopping the workers: the next `npm run demo` packages the champion again',
    );
}
await stopWorkers();
if (ended.kind === 'ended') {
  say(loopEndedLine(LOOP_ID, ended, "run 'npm run demo' again to resume it where it was"));
  await connection.close();
  process.exit(1);
}
const result: GenerationResult = ended.result;

const { rows, state } = await exportLedger(client, LOOP_ID);
const ledgerDir = path.join(config.state_dir, 'exported');
await mkdir(ledgerDir, { recursive: true });
await writeFile(path.join(ledgerDir, 'ledger.jsonl'), rows.map((row) => JSON.stringify(row)).join('\n') + '\n');
await writeFile(path.join(ledgerDir, 'state.json'), `${JSON.stringify(state, null, 2)}\n`);
const count = (type: LedgerRow['type']) => rows.filter((row) => row.type === type).length;
say(
  `ledger (history and the copy in the state dir): ${rows.length} rows: ${count('run')} runs, ${count('eval')} evals, ${count('champion')} champions, ${count('reserve_check')} reserve checks -> ${path.relative(PROJECT_ROOT, ledgerDir)}/ledger.jsonl`,
);
for (const check of rows.filter((row): row is ReserveCheckRow => row.type === 'reserve_check')) {
  say(
    `  reserve check g${check.generation} ${check.run_id} ${check.checkpoint_name}: ${check.stale_champion ? 'stale' : check.verdict} (f2p p=${check.f2p_p?.toFixed(3) ?? '-'}, p2f p=${check.p2f_p?.toFixed(3) ?? '-'}, alpha ${ALPHA})`,
  );
}

const packaged = rows
  .filter((row): row is PackageRow => row.type === 'package' && row.event === 'finished' && row.exit_code === 0)
  .pop();
const launched =
  packaged &&
  rows.find(
    (row): row is PackageRow =>
      row.type === 'package' &&
      row.event === 'launched' &&
      row.run_id === packaged.run_id &&
      row.checkpoint_name === packaged.checkpoint_name &&
      row.generation === packaged.generation,
  );
const packagePath = launched?.log ? (await readFile(launched.log, 'utf8')).trim().split('\n').pop() : undefined;
say(
  `generation now ${result.view.generation}; champion ${result.view.champion ? `${result.view.champion.run_id} ${result.view.champion.checkpoint_name}` : 'none'}`,
);
if (packagePath) {
  say(`packaged champion: ${packagePath}`);
  say(
    `score a message with it:  node --import tsx examples/spam-gate/score.ts --package ${packagePath} --message path/to/mail.eml`,
  );
}
say(`Web UI: ${server.uiUrl} (the dev server keeps running; stop it with: npm run dev-server -- stop)`);
say('run `npm run demo` again to go on with the next generation');
await connection.close();
