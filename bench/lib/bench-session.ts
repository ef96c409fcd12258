// What every section that runs loops sets up: a dev server of its own, a client on it, and the
// workers it starts there; all of it taken down when the section ends, however it ends.
import { Client, Connection } from '@temporalio/client';
import type { Worker } from '@temporalio/worker';
import type { BenchContext } from './context.js';
import type { LaneSpec } from './loop-folder.js';
import { startBenchServer, type BenchServer } from './server.js';
import { childWorkers, inProcessWorkers, type ChildWorkerSpec, type RunningWorkers } from './workers.js';

export interface BenchSession {
  readonly server: BenchServer;
  readonly client: Client;
  /** The orchestrator and `lanes` in this process. */
  inProcess(lanes: readonly LaneSpec[]): Promise<RunningWorkers & { readonly orchestrator: Worker | null }>;
  /** `champion-loop worker` processes (or `command`'s), each ready once it says it is connected. */
  children(workers: readonly ChildWorkerSpec[], command?: (spec: ChildWorkerSpec) => string[]): Promise<RunningWorkers>;
}

/**
 * Run `body` on a server named `name` (its temp folder `champion-loop-bench-<name>-*`) started with
 * temporal-dev.yaml's settings and `dynamicConfig` over them. Workers `body` starts through the
 * session and has not stopped yet are stopped after it, then the client closes and the server
 * stops (its folder kept with `--keep`).
 */
export async function withBenchSession<T>(
  ctx: BenchContext,
  name: string,
  dynamicConfig: Record<string, unknown>,
  body: (session: BenchSession) => Promise<T>,
  /** Another server than a dev server of its own (a cluster: lib/cluster-server.ts). */
  start: () => Promise<BenchServer> = () => startBenchServer(ctx.cli, name, dynamicConfig),
): Promise<T> {
  const server = await start();
  const started: RunningWorkers[] = [];
  let connection: Connection | undefined;
  // A stop that runs once, however many times it is called (by the section, then here).
  const tracked = <W extends RunningWorkers>(workers: W): W => {
    let stopping: Promise<void> | undefined;
    const once = { ...workers, stop: () => (stopping ??= workers.stop()) };
    started.push(once);
    return once;
  };
  try {
    connection = await Connection.connect({ address: server.address });
    const client = new Client({ connection, namespace: server.namespace });
    const { address, namespace } = server;
    return await body({
      server,
      client,
      inProcess: async (lanes) => tracked(await inProcessWorkers({ address, namespace, bundle: ctx.bundle, lanes })),
      children: async (workers, command) =>
        tracked(
          await childWorkers({ address, namespace, logDir: server.dir, workers, ...(command ? { command } : {}) }),
        ),
    });
  } finally {
    for (const workers of started.reverse()) await workers.stop();
    await connection?.close();
    await server.dispose(ctx.options.keep);
  }
}
