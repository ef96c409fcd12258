// A dev server of the bench's own per section: temporal-dev.yaml's settings (namespace, search
// attributes, pragmas, dynamic config) on free ports and a temp database, as the tests start theirs.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadDevServerConfig } from '../../src/devserver/dev-config.js';
import { freePort, startDevServer, type DevServer } from '../../src/devserver/dev-server.js';
import { PROJECT_ROOT } from '../../src/devserver/project-root.js';

export interface BenchServer extends DevServer {
  /** The section's temp folder: the database, the server log, the loop folder. */
  readonly dir: string;
  /** Lines of the server log that warn about history or payload size. */
  historyWarnings(): Promise<string[]>;
  dispose(keep?: boolean): Promise<void>;
}

// Temporal's words for a run's history or a payload nearing its limits (history service, frontend).
const SIZE_WARNING =
  /exceeds (the )?(warn|error)(ing)? limit|history (size|count) exceeds|blob (data )?size exceeds|too large/i;

/** The lines of a Temporal server's log that warn about history or payload size. */
export async function historyWarningsIn(logFile: string): Promise<string[]> {
  const text = await readFile(logFile, 'utf8').catch(() => '');
  return text.split('\n').filter((line) => SIZE_WARNING.test(line));
}

export async function startBenchServer(
  cli: string,
  name: string,
  dynamicConfig: Record<string, unknown> = {},
): Promise<BenchServer> {
  const base = await loadDevServerConfig(path.join(PROJECT_ROOT, 'temporal-dev.yaml'));
  const dir = await mkdtemp(path.join(tmpdir(), `champion-loop-bench-${name}-`));
  const server = await startDevServer({
    cli,
    config: {
      ...base,
      port: await freePort(),
      ui_port: await freePort(),
      db_filename: path.join(dir, 'temporal.sqlite'),
      dynamic_config: { ...base.dynamic_config, ...dynamicConfig },
    },
    projectRoot: PROJECT_ROOT,
    logFile: path.join(dir, 'server.log'),
  });
  return {
    ...server,
    dir,
    historyWarnings: () => historyWarningsIn(server.logFile),
    async dispose(keep = false) {
      await server.stop();
      if (!keep) await rm(dir, { recursive: true, force: true });
    },
  };
}
