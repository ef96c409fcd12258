// champion-loop: start, watch and steer champion loops; run their workers.
import { ObjectStore } from '../artifacts/object-store.js';
import { inSpan, startTracing, stopTracing } from '../tracing/tracing.js';
import { fetchPackage } from '../artifacts/package-store.js';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Command, Option } from 'commander';
import { loadLoopConfig } from '../config/load-loop-config.js';
import type { LoopConfig } from '../config/loop-config.js';
import { stateFromLedger } from '../ledger/from-ledger.js';
import { connectClient, type ConnectionFlags } from './connect.js';
import { NoSuchLoopError } from './no-such-loop.js';
import { exportLedger, lastLoopState, ledgerSources } from './ledger-export.js';
import { checkNotInStateDir, checkOutDir, checkOverwrite, makeOutDir } from './out-dir.js';
import { startOver } from './start-over.js';
import { errorText } from './error-words.js';
import { requireSearchAttributes } from './namespace-check.js';
import { warnOnShortRetention } from './retention.js';
import { registryWarning } from './registry-check.js';
import {
  advanceLoop,
  currentGeneration,
  endIdlePackaging,
  loopState,
  packagingLines,
  packagingView,
  startLoop,
  stopLoop,
} from './loop-control.js';
import { claimFolders } from '../config/folder-owners.js';
import { checkFolderOwners } from './folder-owner.js';
import { configQueues, describeNoPoller, latestRunConfig, queuesWithoutPoller } from './pollers.js';
import { changedFields } from './config-change.js';
import { statusInWords } from './status-words.js';
import { folderMoves, moveFolders, recordedMoves, type FolderMove } from './relocation.js';
import { loopWorkflowId } from '../workflows/ids.js';
import { renderStatus, renderStoppedState } from './render-status.js';
import { notifyProblems } from '../notify/problems.js';
import { copyRepairsLine, copyRepairsSeen } from './copy-repairs.js';
import { registryLine } from './registry-words.js';
import { watchLoop } from './watch.js';
import { memoryWaitLines, storeWaitLines } from './step-waits.js';
import { loopReport } from './report-command.js';
import { runWorker, type WorkerCommandOptions } from './worker-command.js';
import { DEFAULT_MIN_FREE_PIDS } from '../workers/pids-limit.js';
import { loadCandidates } from '../config/load-candidates.js';
import { renderConfig } from './render-config.js';
import { testReuse } from '../rules/test-reuse.js';
import { AesGcmCodec } from '../codec/aes-gcm-codec.js';
import { codecKeysFrom } from '../codec/codec-keys.js';
import { codecServer } from '../codec/codec-server.js';

// A reader that stops reading (`champion-loop status L | head -1`) closes the pipe: end quietly,
// as other command-line tools do, instead of on an unhandled EPIPE.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(process.exitCode ?? 0);
  });
}

const UNANSWERED_START =
  'an orchestrator worker polls, but none answered the start within 10 s (one died a moment ago, or it is busy): ' +
  "the loop is started and runs once an orchestrator takes it; 'champion-loop status' shows it";

const program = new Command('champion-loop')
  .description('A durable champion loop on Temporal: trains, evaluates and promotes gate classifiers.')
  .showHelpAfterError();

function connectionOptions(command: Command): Command {
  return command
    .option('--address <host:port>', 'Temporal frontend (default: TEMPORAL_ADDRESS, the profile, or localhost:7233)')
    .option('--namespace <name>', 'Temporal namespace (default: TEMPORAL_NAMESPACE, the profile, or champion-loop)')
    .option('--profile <name>', 'envconfig profile (default: TEMPORAL_PROFILE or "default")')
    .option('--tls', 'connect with TLS (implied by the TLS paths and by an API key)')
    .option('--tls-cert-path <file>', 'mTLS client certificate (default: TEMPORAL_TLS_CLIENT_CERT_PATH or the profile)')
    .option('--tls-key-path <file>', 'mTLS client key (default: TEMPORAL_TLS_CLIENT_KEY_PATH or the profile)')
    .option(
      '--tls-ca-path <file>',
      "CA certificate the server's certificate must chain to (default: TEMPORAL_TLS_SERVER_CA_CERT_PATH)",
    )
    .option(
      '--tls-server-name <name>',
      'server name to verify the certificate against (default: TEMPORAL_TLS_SERVER_NAME)',
    )
    .option('--api-key <key>', 'API key (prefer TEMPORAL_API_KEY or the profile: a flag shows in the process list)');
}

/** The command being run (`start`, `status`, ...): the name of its span when tracing is on. */
let commandName = '';
program.hook('preAction', (_program, command) => {
  commandName = command.name();
});

async function withClient<T>(
  flags: ConnectionFlags,
  body: (client: Awaited<ReturnType<typeof connectClient>>['client']) => Promise<T>,
): Promise<T> {
  const { client, connection } = await connectClient(flags);
  try {
    // A span of the command's own, the root of what it starts in the loop's workflows (tracing.ts).
    return await inSpan(`champion-loop ${commandName}`, { 'champion_loop.command': commandName }, () => body(client));
  } finally {
    await connection.close();
  }
}

connectionOptions(
  program
    .command('start')
    .description('start a loop (or report the one already running); a loop that ended in any way goes on where it was')
    .argument('<loop-id>', 'the loop id, e.g. gate-2026')
    .requiredOption('-c, --config <loop.yaml>', 'the loop settings')
    .option(
      '--fresh',
      "start over at generation 1: the loop's state dir and runs root are moved aside first (never deleted)",
    )
    .option(
      '--from-seed-state-dir <dir>',
      "a new loop goes on from a Python seed loop: its state dir's ledger.jsonl (runs under the loop's runs_root)",
    ),
).action(
  async (loopId: string, options: ConnectionFlags & { config: string; fresh?: boolean; fromSeedStateDir?: string }) => {
    if (options.fresh && options.fromSeedStateDir !== undefined)
      throw new Error(
        '--fresh and --from-seed-state-dir do not go together: a seed loop is carried over into a loop id with no history',
      );
    const config = await loadLoopConfig(options.config);
    // Refuse a broken candidates file now rather than in the workflow's first round.
    await loadCandidates(config.candidates, config.workdir);
    await withClient(options, async (client) => {
      const namespace = client.options.namespace;
      // A namespace without the loop's search attributes is named first, before anything is touched.
      await requireSearchAttributes(client);
      await checkFolderOwners(loopId, namespace, config, options.config);
      // The loop.yaml its latest run was started with: a stopped loop resumes only where its state is.
      const previous = options.fromSeedStateDir === undefined ? await latestRunConfig(client, loopId) : null;
      const moved = previous && !options.fresh ? folderMoves(previous, config) : [];
      let relocation: FolderMove[] = [];
      if (
        moved.length > 0 &&
        (await client.workflow.getHandle(loopWorkflowId(loopId)).describe()).status.name !== 'RUNNING'
      ) {
        // Moved by `champion-loop relocate` (recorded in the new state dir): resumed there.
        if (!(await recordedMoves(config.state_dir, moved)))
          throw new Error(
            `loop ${loopId}'s state is in ${moved.map((move) => `${move.from} (${move.field})`).join(' and ')}, but ${options.config} now says ${moved.map((move) => `${move.field}: ${move.to}`).join(', ')}: ` +
              `resuming it there would rebuild its split and lose its runs. Put ${moved.map((move) => move.field).join(' and ')} back, ` +
              `move the folders there with 'champion-loop relocate ${loopId} --config ${options.config}', or start over there with --fresh. Nothing started.`,
          );
        relocation = moved;
      }
      if (options.fresh) {
        const moved = await startOver(client, loopId, config);
        for (const [from, to] of moved) console.log(`moved ${from} aside to ${to}`);
      }
      await warnOnShortRetention(client, (line) => console.warn(line));
      const registry = await registryWarning(config.mlflow);
      if (registry) console.warn(registry);
      const outcome = await startLoop(client, loopId, config, {
        fresh: options.fresh === true,
        relocation,
        ...(options.fromSeedStateDir === undefined ? {} : { seedStateDir: options.fromSeedStateDir }),
      });
      if (outcome.kind !== 'already-running') await claimFolders(loopId, namespace, config);
      switch (outcome.kind) {
        case 'started':
          console.log(
            `started loop ${loopId} (workflow ${outcome.workflowId}); watch it with: champion-loop status ${loopId}`,
          );
          if (outcome.unanswered) console.log(`note: ${UNANSWERED_START}`);
          if (outcome.incarnation !== undefined)
            console.log(
              `note: a fresh start, the loop's incarnation ${outcome.incarnation}: its children's workflow ids carry /i${outcome.incarnation}, so none of the old loop's children is taken for one of its own`,
            );
          break;
        case 'resumed':
          console.log(
            `resumed loop ${loopId} in generation ${outcome.generation} from ${outcome.from} (workflow ${outcome.workflowId})`,
          );
          for (const note of outcome.notes ?? []) console.log(`note: ${note}`);
          if (outcome.unanswered) console.log(`note: ${UNANSWERED_START}`);
          break;
        case 'already-running':
          console.log(
            `loop ${loopId} is already running (workflow ${outcome.workflowId}${outcome.view ? `, generation ${outcome.view.generation}, round ${outcome.view.round}` : ''}); nothing started`,
          );
          {
            const changed = previous ? changedFields(previous, config) : [];
            if (changed.length > 0) {
              console.log(
                `note: ${options.config} differs from the loop.yaml the running loop was started with (${changed.join(', ')}); the edit was ignored. ` +
                  `To apply it: 'champion-loop stop ${loopId}', wait until it has stopped, then 'champion-loop start ${loopId} --config ${options.config}'.`,
              );
            }
          }
          break;
      }
      for (const queue of await queuesWithoutPoller(client, configQueues(config)))
        console.log(`note: ${describeNoPoller(queue)}`);
    });
  },
);

connectionOptions(
  program
    .command('relocate')
    .description(
      "move a stopped loop's state dir and runs root to where its edited loop.yaml says (or take them where you moved them), so that 'start' resumes it there",
    )
    .argument('<loop-id>')
    .requiredOption(
      '-c, --config <loop.yaml>',
      'the loop settings, with state_dir and runs_root where the folders are to be',
    ),
).action(async (loopId: string, options: ConnectionFlags & { config: string }) => {
  const config = await loadLoopConfig(options.config);
  await withClient(options, async (client) => {
    const previous = await latestRunConfig(client, loopId);
    if (previous === null)
      throw new Error(
        `loop ${loopId} has no run in history: 'start' reads its ledger copy where ${options.config} says, so there is nothing to relocate`,
      );
    const status = (await client.workflow.getHandle(loopWorkflowId(loopId)).describe()).status.name;
    if (status === 'RUNNING')
      throw new Error(
        `loop ${loopId} is running: stop it first ('champion-loop stop ${loopId}'), then relocate it. Nothing moved.`,
      );
    // A loop terminated or cancelled may have children still running in the old folders.
    if (status !== 'COMPLETED')
      throw new Error(
        `loop ${loopId}'s last run was ${statusInWords(status)}: jobs of it may still run in the old folders. ` +
          `Start it ('champion-loop start ${loopId}' with the loop.yaml it ran with), stop it ('champion-loop stop ${loopId}'), then relocate it. Nothing moved.`,
      );
    const moves = folderMoves(previous, config);
    if (moves.length === 0) {
      console.log(`loop ${loopId}: ${options.config} names the folders its last run used; nothing to move`);
      return;
    }
    // An idle packaging workflow still holds the old paths: ended (nothing is lost), a new one starts with the next champion.
    await endIdlePackaging(client, loopId);
    for (const line of await moveFolders(loopId, moves, config.state_dir)) console.log(line);
    console.log(
      `loop ${loopId}: the move is recorded in ${config.state_dir}; resume it there with 'champion-loop start ${loopId} --config ${options.config}' ` +
        '(rows already in its ledger keep the paths they had)',
    );
  });
});

connectionOptions(
  program
    .command('stop')
    .description('stop a loop: launch nothing new, let running work finish, then close')
    .argument('<loop-id>')
    .option('--now', 'stop at once: cancel running jobs and kill their subprocesses'),
).action(async (loopId: string, options: ConnectionFlags & { now?: boolean }) => {
  const view = await withClient(options, (client) => stopLoop(client, loopId, options.now === true));
  console.log(
    options.now
      ? `loop ${loopId}: generation ${view.generation}, round ${view.round}: stopping now (running jobs cancelled)`
      : `loop ${loopId}: generation ${view.generation}, round ${view.round}: stopping after running work finishes (${view.in_flight.length} running)`,
  );
});

connectionOptions(
  program
    .command('advance')
    .description('open the next generation before any new job (e.g. after the corpus labels changed)')
    .argument('<loop-id>')
    .requiredOption('--reason <text>', 'why, recorded in the generation row')
    .option(
      '--generation <n>',
      'the generation to advance (default: the one the loop is at now); refused once the loop is past it',
    ),
).action(async (loopId: string, options: ConnectionFlags & { reason: string; generation?: string }) => {
  const view = await withClient(options, async (client) => {
    // The generation this command means, so that sending it twice opens one generation, not two.
    const from =
      options.generation === undefined
        ? await currentGeneration(client, loopId)
        : positive(options.generation, '--generation');
    return advanceLoop(client, loopId, options.reason, undefined, from, options.generation !== undefined);
  });
  console.log(
    `loop ${loopId}: generation ${view.generation}, round ${view.round}: advancing to generation ${view.generation + 1} before any new job (${options.reason})`,
  );
});

connectionOptions(
  program
    .command('status')
    .description(
      "a loop's state: generation, round, champion, Pareto set, reserve checks, lanes (a loop that is not running: its last state)",
    )
    .argument('<loop-id>')
    .option('--json', 'print the state query as JSON')
    .option('-c, --config <loop.yaml>', "the loop's settings: where its ledger copy is when no history of it is left"),
).action(async (loopId: string, options: ConnectionFlags & { json?: boolean; config?: string }) => {
  await withClient(options, async (client) => {
    let status: Awaited<ReturnType<typeof loopState>>;
    try {
      status = await loopState(client, loopId);
    } catch (error) {
      if (!(error instanceof NoSuchLoopError) || options.config === undefined) throw error;
      // No history left at all (retention, delete, a new server): the last state from the copy.
      const ledger = await exportLedger(client, loopId, await copyOf(options.config), { upToDamage: true });
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
      return;
    }
    if (status.kind === 'running' && status.view) {
      const noPoller = status.noPoller.map(describeNoPoller);
      // notify.json is the orchestrator's: readable here when this CLI shares its file system.
      const notify = status.view.state_dir ? await notifyProblems(status.view.state_dir) : [];
      const repairs = status.view.state_dir ? await copyRepairsSeen(status.view.state_dir) : null;
      const packaging = await packagingView(client, loopId);
      const registry = packaging?.registry;
      const registered = registryLine(registry);
      const { ended: packagingEnded, upload } = await packagingLines(client, loopId);
      const storeWaits = await storeWaitLines(client, status.view);
      const memoryWaits = await memoryWaitLines(client, status.view);
      console.log(
        options.json
          ? JSON.stringify(
              {
                ...status.view,
                test_reuse: testReuse(status.view.test_evals, status.view.champion),
                ...(noPoller.length > 0 ? { no_poller: noPoller } : {}),
                ...(notify.length > 0 ? { notify_problems: notify } : {}),
                ...(repairs ? { copy_repairs: repairs } : {}),
                ...(registry ? { registry } : {}),
                ...(packagingEnded ? { packaging_ended: packagingEnded } : {}),
                ...(upload ? { package_upload: upload } : {}),
                ...(storeWaits.length > 0 ? { store_waits: storeWaits } : {}),
                ...(memoryWaits.length > 0 ? { memory_waits: memoryWaits } : {}),
              },
              null,
              2,
            )
          : [
              renderStatus(status.view),
              ...noPoller,
              ...notify,
              ...(repairs ? [copyRepairsLine(repairs)] : []),
              ...(registered ? [registered] : []),
              ...(packagingEnded ? [packagingEnded] : []),
              ...(upload ? [upload] : []),
              ...storeWaits,
              ...memoryWaits,
            ].join('\n'),
      );
      return;
    }
    if (status.kind === 'running') {
      // No orchestrator polls: nobody can answer the state query; what history holds instead.
      const ledger = await lastLoopState(client, loopId);
      const noPoller = status.noPoller.map(describeNoPoller);
      const why = status.unanswered ?? 'no orchestrator worker polls its task queue (none seen in the last 90 s)';
      if (options.json) {
        console.log(
          JSON.stringify({ running: true, answered: false, why, no_poller: noPoller, ...ledger.state }, null, 2),
        );
        return;
      }
      console.log(`loop ${loopId} is running but cannot answer: ${why}`);
      for (const line of noPoller) console.log(line);
      console.log(`its state as history holds it:\n${renderStoppedState(ledger.state)}`);
      return;
    }
    // Not running: its last state from history (the ledger copy only once history is gone).
    const ledger = await lastLoopState(client, loopId);
    const { note } = ledger;
    const repairs = await copyRepairsSeen(ledger.stateDir);
    if (options.json) {
      console.log(
        JSON.stringify(
          { running: false, ended: status.ended, ...ledger.state, ...(repairs ? { copy_repairs: repairs } : {}) },
          null,
          2,
        ),
      );
      return;
    }
    console.log(
      `loop ${loopId} is not running (its last run ${status.ended}); 'champion-loop start' goes on from here`,
    );
    console.log(renderStoppedState(ledger.state));
    if (note) console.log(`note: ${note}`);
    if (repairs) console.log(copyRepairsLine(repairs));
  });
});

connectionOptions(
  program
    .command('watch')
    .description('follow a running loop: progress per lane, new champions, front changes, reserve checks, generations')
    .argument('<loop-id>')
    .option('--interval <ms>', 'how often to look', '1000'),
).action(async (loopId: string, options: ConnectionFlags & { interval: string }) => {
  const abort = new AbortController();
  process.once('SIGINT', () => abort.abort());
  await withClient(options, (client) =>
    watchLoop(client, loopId, {
      out: process.stdout,
      intervalMs: positive(options.interval, '--interval'),
      signal: abort.signal,
    }),
  );
});

/** The flags `ledger` and `report` share. */
interface LedgerOutFlags {
  out?: string;
  config?: string;
  force?: boolean;
  upToDamage?: boolean;
}

connectionOptions(
  program
    .command('ledger')
    .description(
      "export a loop's ledger.jsonl and state.json (the seed's formats): Temporal history, and the copy in its state dir for what history no longer holds",
    )
    .argument('<loop-id>')
    .option('-o, --out <dir>', 'write ledger.jsonl and state.json into this folder (default: ledger.jsonl to stdout)')
    .option('-c, --config <loop.yaml>', "the loop's settings: where its copy is when no history of it is left")
    .option('--force', 'replace ledger.jsonl and state.json when --out holds them already')
    .option('--up-to-damage', 'with no history left and a damaged copy: export the rows before the damage'),
).action(async (loopId: string, options: ConnectionFlags & LedgerOutFlags) => {
  // A folder that cannot be written, or files it would replace, are said before the export.
  const files = options.out ? [path.join(options.out, 'ledger.jsonl'), path.join(options.out, 'state.json')] : [];
  if (options.out) {
    await checkOutDir(options.out);
    await checkOverwrite(files, '--out', options.force === true);
  }
  const fallback = options.config ? await copyOf(options.config) : undefined;
  const ledger = await withClient(options, (client) =>
    exportLedger(client, loopId, fallback, { upToDamage: options.upToDamage === true }),
  );
  if (options.out) await checkNotInStateDir(options.out, '--out', loopId, ledger.stateDir);
  const note = ledgerSources(ledger);
  if (note) console.warn(`note: ${note}`);
  const { rows, state } = ledger;
  const jsonl = rows.map((row) => JSON.stringify(row)).join('\n') + (rows.length > 0 ? '\n' : '');
  if (!options.out) {
    process.stdout.write(jsonl);
    return;
  }
  await makeOutDir(options.out);
  await writeFile(path.join(options.out, 'ledger.jsonl'), jsonl);
  await writeFile(path.join(options.out, 'state.json'), `${JSON.stringify(state, null, 2)}\n`);
  console.log(
    `${rows.length} rows -> ${path.join(options.out, 'ledger.jsonl')}; state -> ${path.join(options.out, 'state.json')}`,
  );
});

connectionOptions(
  program
    .command('report')
    .description(
      "a self-contained HTML report of a loop's ledger: per generation the Pareto front plotted, the champion timeline, the reserve checks",
    )
    .argument('<loop-id>')
    .option(
      '-o, --out <file.html>',
      "where to write it (default: reports/<loop-id>.html beside the loop's state dir, never the current folder)",
    )
    .option('-c, --config <loop.yaml>', "the loop's settings: where its ledger copy is when no history of it is left")
    .option('--force', 'replace the file when it exists already')
    .option('--up-to-damage', 'with no history left and a damaged copy: report the rows before the damage'),
).action(async (loopId: string, options: ConnectionFlags & LedgerOutFlags) => {
  if (options.out !== undefined) await checkOverwrite([options.out], '--out', options.force === true);
  const fallback = options.config ? await copyOf(options.config) : undefined;
  const report = await withClient(options, (client) =>
    loopReport(client, loopId, new Date(), fallback, { upToDamage: options.upToDamage === true }),
  );
  // Not into the folder the command runs in (often a clone of this repository): beside the loop's own files.
  const out =
    options.out ??
    (report.stateDir === null
      ? `champion-loop-${loopId}.html`
      : path.join(path.dirname(report.stateDir), 'reports', `${loopId}.html`));
  if (options.out === undefined) await checkOverwrite([out], '--out', options.force === true);
  await checkNotInStateDir(path.dirname(path.resolve(out)), '--out', loopId, report.stateDir);
  if (report.note) console.warn(`note: ${report.note}`);
  await mkdir(path.dirname(path.resolve(out)), { recursive: true });
  await writeFile(out, report.html);
  console.log(
    `report of loop ${loopId}: ${report.generations} generation${report.generations === 1 ? '' : 's'}, ${report.testEvals} test evaluations -> ${out} (opens offline in any browser)`,
  );
});

program
  .command('render-config')
  .description(
    "print the job config the loop writes for a candidate in a generation and round (the bytes PyYAML's safe_dump writes), nothing else",
  )
  .requiredOption('-c, --config <loop.yaml>', 'the loop settings')
  .requiredOption('--candidate <name>', 'the candidate, by name in the candidates file')
  .requiredOption('--generation <g>', 'the generation (its split path; `{generation}` in string overrides)')
  .requiredOption('--round <r>', "the round (the run's seed)")
  .action(async (options: { config: string; candidate: string; generation: string; round: string }) => {
    const text = await renderConfig(
      options.config,
      options.candidate,
      positive(options.generation, '--generation'),
      positive(options.round, '--round'),
    );
    process.stdout.write(text);
  });

program
  .command('fetch-package')
  .description(
    "fetch a packaged champion from the loop's artifact store (loop.yaml artifacts:) into a folder, every file checked by sha256: the URI is the package row's package_uri, or the MLflow version's source",
  )
  .argument('<uri>', 's3://bucket/prefix/packages/LOOP/gNNN/RUN/CHECKPOINT')
  .requiredOption('-c, --config <loop.yaml>', 'the loop settings: its artifacts: section says where the store is')
  .requiredOption('-o, --out <dir>', 'the folder to fetch into (made if missing)')
  .action(async (uri: string, options: { config: string; out: string }) => {
    const config = await loadLoopConfig(options.config);
    if (config.artifacts === undefined)
      throw new Error(`${options.config} has no artifacts: section: the loop keeps no packages in a store`);
    const store = new ObjectStore(config.artifacts);
    try {
      const fetched = await fetchPackage(store, uri, path.resolve(options.out));
      console.log(`${uri}: ${fetched.files} files, ${fetched.bytes} bytes, each checked by sha256 -> ${options.out}`);
    } finally {
      store.close();
    }
  });

program
  .command('codec-server')
  .description(
    'serve the payload codec (CHAMPION_LOOP_CODEC_KEYS or CHAMPION_LOOP_CODEC_KEY_FILE) over HTTP for the Temporal Web UI (its codec endpoint) and `temporal --codec-endpoint`, so both show encrypted payloads decoded',
  )
  .option('--host <host>', 'interface to listen on', '127.0.0.1')
  .option('--port <port>', 'port to listen on', '8888')
  .option('--origin <url...>', "browser origins allowed to call it: the Web UI's address", [
    'http://localhost:8233',
    'http://127.0.0.1:8233',
  ])
  .action(async (options: { host: string; port: string; origin: string[] }) => {
    const keys = codecKeysFrom();
    if (keys === null)
      throw new Error(
        'no codec keys: set CHAMPION_LOOP_CODEC_KEYS or CHAMPION_LOOP_CODEC_KEY_FILE to the keys the workers use (docs/operating.md, "Encrypting payloads")',
      );
    const server = codecServer({ codec: new AesGcmCodec(keys), origins: options.origin });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(Number(options.port), options.host, resolve);
    });
    const address = server.address();
    const where = typeof address === 'object' && address ? `http://${options.host}:${address.port}` : String(address);
    console.log(
      `codec server at ${where} (keys ${keys.keys.map((key) => key.id).join(', ')}; browsers from ${options.origin.join(', ')})`,
    );
    await new Promise<void>((resolve) => {
      const stop = () => server.close(() => resolve());
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
  });

program
  .command('state')
  .description('print, as JSON, the state.json that a seed-format ledger.jsonl folds to')
  .requiredOption('--from-ledger <file>', 'a ledger.jsonl written by the Python loop or by `champion-loop ledger`')
  .option('--band-decisions', "compare champions on the reports' decided counts")
  .addOption(new Option('--max-reserve-checks <n>', 'reserve checks before the generation advances').default('3'))
  .addOption(new Option('--saturation-evals <n>', 'test evals between reserve checks').default('200'))
  .option('--state-dir <dir>', 'the state dir the split path is named under', 'artifacts/champion-loop')
  .action(
    async (options: {
      fromLedger: string;
      bandDecisions?: boolean;
      maxReserveChecks: string;
      saturationEvals: string;
      stateDir: string;
    }) => {
      const text = await readFile(options.fromLedger, 'utf8');
      const state = stateFromLedger(
        text,
        options.fromLedger,
        {
          mode: options.bandDecisions ? 'band-decisions' : 'default',
          maxReserveChecks: positive(options.maxReserveChecks, '--max-reserve-checks'),
          saturationEvals: positive(options.saturationEvals, '--saturation-evals'),
        },
        options.stateDir,
      );
      console.log(JSON.stringify(state, null, 2));
    },
  );

connectionOptions(
  program
    .command('worker')
    .description(
      'run a worker: the orchestrator, one GPU lane, or the package worker. A lane stops at once on SIGTERM/SIGINT (its jobs are retried) and drains on SIGUSR2 or `worker gpu --drain` (no new job; the running ones finish, then it exits)',
    )
    .argument('<kind>', 'orchestrator | gpu | package')
    .option('--device <n>', 'gpu: the physical GPU this lane serves')
    .option('--host <name>', "gpu: the host part of the lane's task queue (default: this machine's host name)")
    .option(
      '--config <loop.yaml>',
      "gpu: take the lane's slots, min_free_gib and kill_grace from its entry (same --host and --device) in this loop.yaml",
    )
    .option('--slots <n>', 'gpu: jobs this lane runs at once (default 1; with --config it must agree with loop.yaml)')
    .option(
      '--min-free-gib <gib>',
      "gpu: the GPU memory a job needs when its candidate's is not known yet (default 30; with --config it must agree)",
    )
    .option(
      '--kill-grace <duration>',
      "gpu: how long a stopped job's processes get between SIGTERM and SIGKILL (default 25s; with --config it must agree)",
    )
    .option(
      '--min-free-pids <n>',
      "gpu: tasks the cgroup's pids.max must still allow before the lane takes a job (0: no check)",
      String(DEFAULT_MIN_FREE_PIDS),
    )
    .option('--cpu', 'gpu: a CPU lane (no GPU on this box): no memory guard, no GPU visible to its jobs')
    .option(
      '--drain',
      'gpu: drain the lane worker of this --host and --device running on this machine (it takes no new job, its running ones finish, then it exits), and wait until it has',
    )
    .option(
      '--make-current',
      "orchestrator, with Worker Versioning: make this build the deployment's current version even when a newer build is (a rollback on purpose); without it an older build restarted serves only the runs started on it",
    )
    .option(
      '--metrics-port <port>',
      'serve Prometheus metrics (temporal_*) at http://0.0.0.0:PORT/metrics (default: CHAMPION_LOOP_METRICS_PORT; off)',
    ),
).action(async (kind: string, options: WorkerCommandOptions) => {
  await runWorker(kind, options);
});

/** Where a loop's ledger copy is, from its loop.yaml (for a loop whose history is gone). */
async function copyOf(file: string): Promise<{ stateDir: string; config: LoopConfig }> {
  const config = await loadLoopConfig(file);
  return { stateDir: config.state_dir, config };
}

function positive(text: string, flag: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${flag} must be a whole number >= 1 (got ${text})`);
  return value;
}

startTracing('cli');
try {
  await program.parseAsync();
} catch (error) {
  console.error(errorText(error));
  process.exitCode = 1;
} finally {
  // The command's spans go out before it exits (nothing to do with tracing off).
  await stopTracing();
}
