// A self-hosted Temporal cluster for one test file or bench section, as an operator sets one up: PostgreSQL for
// persistence and SQL visibility, the schema applied with temporal-sql-tool, the server with 4
// history shards, and the namespace made with the `temporal` CLI (retention, then each search
// attribute: one `--name` per call). It restarts on the same ports and database, as TestServer does.
import { chown, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa, type ResultPromise } from 'execa';
import { stringify } from 'yaml';
import { loadDevServerConfig, type DevServerConfig } from '../../src/devserver/dev-config.js';
import { restartablePort, serverAnswers } from '../../src/devserver/dev-server.js';
import { PROJECT_ROOT } from '../../src/devserver/project-root.js';
import type { ClusterTools } from './provision.js';

const HOST = '127.0.0.1';
const SHARDS = 4;

/** Run a PostgreSQL program as the `postgres` user when this is root (initdb refuses root). */
function asPostgres(tools: ClusterTools, program: string, args: readonly string[]) {
  const file = path.join(tools.postgresBin, program);
  return process.getuid?.() === 0
    ? execa('runuser', ['-u', 'postgres', '--', file, ...args], { all: true })
    : execa(file, args, { all: true });
}

/** PostgreSQL in `dir`, on `pgPort`, trusting local connections as user `temporal`. */
async function startPostgres(tools: ClusterTools, dir: string, pgPort: number): Promise<string> {
  const data = path.join(dir, 'pg');
  await mkdir(data, { recursive: true });
  if (process.getuid?.() === 0) {
    const { stdout } = await execa('id', ['-u', 'postgres']);
    const { stdout: group } = await execa('id', ['-g', 'postgres']);
    await chown(dir, Number(stdout), Number(group));
    await chown(data, Number(stdout), Number(group));
  }
  await asPostgres(tools, 'initdb', ['-D', data, '-U', 'temporal', '-A', 'trust', '--no-sync']);
  await pgCtlStart(tools, dir, pgPort);
  return data;
}

async function pgCtlStart(tools: ClusterTools, dir: string, pgPort: number): Promise<void> {
  const data = path.join(dir, 'pg');
  const options = `-p ${pgPort} -k ${data} -c listen_addresses=${HOST} -c fsync=off -c max_connections=200`;
  await asPostgres(tools, 'pg_ctl', ['-D', data, '-l', path.join(dir, 'postgres.log'), '-o', options, '-w', 'start']);
}

/** The databases and their schema, as the server's docs say: create, set up at 0.0, update to the newest. */
async function applySchema(tools: ClusterTools, pgPort: number): Promise<void> {
  for (const [database, folder] of [
    ['temporal', 'temporal'],
    ['temporal_visibility', 'visibility'],
  ] as const) {
    const sql = (...args: string[]) =>
      execa(
        tools.sqlTool,
        ['--plugin', 'postgres12', '--ep', HOST, '-p', String(pgPort), '-u', 'temporal', '--db', database, ...args],
        { all: true },
      );
    await sql('create-database');
    await sql('setup-schema', '-v', '0.0');
    await sql('update-schema', '-d', path.join(tools.schemaDir, folder, 'versioned'));
  }
}

interface Ports {
  readonly pg: number;
  readonly frontend: number;
  readonly frontendHttp: number;
  readonly history: number;
  readonly matching: number;
  readonly worker: number;
  readonly membership: readonly [number, number, number, number];
}

function serverConfig(ports: Ports, dynamicConfigFile: string): Record<string, unknown> {
  const store = (database: string, maxConns: number) => ({
    sql: {
      pluginName: 'postgres12',
      databaseName: database,
      connectAddr: `${HOST}:${ports.pg}`,
      connectProtocol: 'tcp',
      user: 'temporal',
      password: 'temporal',
      maxConns,
      maxIdleConns: maxConns,
      maxConnLifetime: '1h',
    },
  });
  const service = (grpcPort: number, membershipPort: number, more: Record<string, unknown> = {}) => ({
    rpc: { grpcPort, membershipPort, bindOnLocalHost: true, ...more },
  });
  return {
    log: { stdout: true, level: 'warn' },
    persistence: {
      defaultStore: 'postgres-default',
      visibilityStore: 'postgres-visibility',
      numHistoryShards: SHARDS,
      datastores: { 'postgres-default': store('temporal', 20), 'postgres-visibility': store('temporal_visibility', 4) },
    },
    global: { membership: { maxJoinDuration: '30s', broadcastAddress: HOST } },
    services: {
      frontend: service(ports.frontend, ports.membership[0], { httpPort: ports.frontendHttp }),
      history: service(ports.history, ports.membership[1]),
      matching: service(ports.matching, ports.membership[2]),
      worker: service(ports.worker, ports.membership[3]),
    },
    clusterMetadata: {
      enableGlobalNamespace: false,
      failoverVersionIncrement: 10,
      masterClusterName: 'active',
      currentClusterName: 'active',
      clusterInformation: {
        active: {
          enabled: true,
          initialFailoverVersion: 1,
          rpcName: 'frontend',
          rpcAddress: `${HOST}:${ports.frontend}`,
        },
      },
    },
    dcRedirectionPolicy: { policy: 'noop' },
    dynamicConfigClient: { filepath: dynamicConfigFile, pollInterval: '10s' },
  };
}

/** The server's dynamic config file format: each key a list of values (no constraints). */
function dynamicConfigYaml(settings: Record<string, unknown>): string {
  return stringify(Object.fromEntries(Object.entries(settings).map(([key, value]) => [key, [{ value }]])));
}

/** A running cluster: the shape of the tests' TestServer (test/helpers/test-server.ts). */
export interface ClusterServer {
  readonly address: string;
  readonly namespace: string;
  readonly uiUrl: string;
  /** The Temporal server's process (PostgreSQL runs apart). */
  readonly pid: number;
  readonly logFile: string;
  /** Its folder: PostgreSQL's data, the server's config and log. */
  readonly dir: string;
  /** The `temporal` CLI's flags for this cluster's frontend and namespace. */
  readonly cliFlags: readonly string[];
  /** SIGTERM, then SIGKILL; PostgreSQL stays up. */
  stop(): Promise<void>;
  /** SIGKILL at once (fault tests); PostgreSQL stays up. */
  kill(): Promise<void>;
  /** The server again on the same ports and database, with more dynamic config if given. */
  restart(options?: { dynamicConfig?: Record<string, unknown> }): Promise<ClusterServer>;
  /** The server and PostgreSQL gone, and the folder removed. */
  dispose(): Promise<void>;
}

/**
 * Start PostgreSQL and the server in a folder of their own. The namespace is made with its
 * retention; `searchAttributes: false` leaves them out (a test of what start and workers say).
 */
export async function startCluster(
  tools: ClusterTools,
  options: {
    /** The Temporal CLI the namespace is made with. */
    readonly cli: string;
    readonly searchAttributes?: boolean;
    /** temporal-dev.yaml's dynamic config, and this over it. */
    readonly dynamicConfig?: Record<string, unknown>;
  },
): Promise<ClusterServer> {
  const dev = await loadDevServerConfig(path.join(PROJECT_ROOT, 'temporal-dev.yaml'));
  const dir = await mkdtemp(path.join(tmpdir(), 'champion-loop-cluster-'));
  // Ports below the ephemeral range, so that a restart finds them free again (restartablePort).
  const taken = new Set<number>();
  const port = async (): Promise<number> => {
    const picked = await restartablePort(taken);
    taken.add(picked);
    return picked;
  };
  const ports: Ports = {
    pg: await port(),
    frontend: await port(),
    frontendHttp: await port(),
    history: await port(),
    matching: await port(),
    worker: await port(),
    membership: [await port(), await port(), await port(), await port()],
  };
  const address = `${HOST}:${ports.frontend}`;
  const namespace = dev.namespace;
  const { cli } = options;
  const cliFlags = ['--address', address, '--namespace', namespace];
  const logFile = path.join(dir, 'server.log');
  try {
    await startPostgres(tools, dir, ports.pg);
    await applySchema(tools, ports.pg);
  } catch (error) {
    await stopPostgres(tools, dir).catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  const configFile = path.join(dir, 'server.yaml');
  const dynamicConfigFile = path.join(dir, 'dynamicconfig.yaml');
  await writeFile(configFile, stringify(serverConfig(ports, dynamicConfigFile)));

  const launch = async (more: Record<string, unknown> = {}): Promise<ClusterServer> => {
    await writeFile(dynamicConfigFile, dynamicConfigYaml({ ...dev.dynamic_config, ...more }));
    const child: ResultPromise = execa(tools.server, ['--config-file', configFile, '--allow-no-auth', 'start'], {
      stdout: { file: logFile, append: true },
      stderr: { file: logFile, append: true },
      reject: false,
      detached: true,
    });
    const exited = child.then(() => undefined);
    let gone = false;
    void exited.then(() => (gone = true));
    const pid = child.pid ?? 0;
    const deadline = Date.now() + 120_000;
    // The frontend answers before the namespace exists: wait for the cluster, then the namespace.
    while (!(await serverAnswers(address, 'temporal-system'))) {
      if (gone) throw new Error(`the Temporal server exited during start-up; its log: ${logFile}`);
      if (Date.now() > deadline)
        throw new Error(`the Temporal server did not answer at ${address}; its log: ${logFile}`);
      await sleep(250);
    }
    const waitExit = async (ms: number) => Promise.race([exited, sleep(ms)]);
    const signal = (name: NodeJS.Signals) => {
      try {
        process.kill(-pid, name);
      } catch {
        // gone already
      }
    };
    return {
      address,
      namespace,
      uiUrl: '',
      pid,
      logFile,
      dir,
      cliFlags,
      async stop() {
        signal('SIGTERM');
        await waitExit(15_000);
        signal('SIGKILL');
        await waitExit(5_000);
      },
      async kill() {
        signal('SIGKILL');
        await waitExit(10_000);
      },
      restart: (again) => launch({ ...more, ...again?.dynamicConfig }),
      async dispose() {
        signal('SIGKILL');
        await waitExit(10_000);
        await stopPostgres(tools, dir);
        await rm(dir, { recursive: true, force: true });
      },
    };
  };
  const server = await launch(options.dynamicConfig);
  try {
    await makeNamespace(cli, cliFlags, dev, options.searchAttributes ?? true);
  } catch (error) {
    await server.dispose();
    throw error;
  }
  return server;
}

/** The namespace as an operator makes it: its retention, then each search attribute in a call of its own. */
async function makeNamespace(
  cli: string,
  flags: readonly string[],
  dev: DevServerConfig,
  searchAttributes: boolean,
): Promise<void> {
  const run = (args: readonly string[]) => execa(cli, [...args, ...flags], { stdin: 'ignore', all: true });
  await run(['operator', 'namespace', 'create', '--retention', `${dev.retention_days * 24}h`]);
  // Registering a namespace is eventually visible to the frontend's cache: wait until it serves it.
  const [, address = ''] = flags;
  while (!(await serverAnswers(address, dev.namespace))) await sleep(250);
  if (!searchAttributes) return;
  for (const [name, type] of Object.entries(dev.search_attributes))
    await run(['operator', 'search-attribute', 'create', '--name', name, '--type', type]);
}

async function stopPostgres(tools: ClusterTools, dir: string): Promise<void> {
  const data = path.join(dir, 'pg');
  if ((await readdir(data).catch(() => [])).length === 0) return;
  await asPostgres(tools, 'pg_ctl', ['-D', data, '-m', 'immediate', 'stop']).catch(() => undefined);
}
