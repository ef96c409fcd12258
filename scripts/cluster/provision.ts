// What the cluster tests need beyond the Temporal CLI: the Temporal server and its SQL schema
// tool built from the Go module proxy (no registry ships them prebuilt; kept in the machine's tool
// cache, ../lib/tool-cache.ts, shared by every clone), the server's
// PostgreSQL schema files, and PostgreSQL itself (Debian's, installed with apt-get when absent).
import { cp, mkdir, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { executable } from '../lib/go-program.js';
import { toolDir, withToolLock } from '../lib/tool-cache.js';

/** The server release the cluster tests run; its module needs a newer Go than most boxes have. */
const TEMPORAL_SERVER_VERSION = 'v1.32.2';
const GO_TOOLCHAIN = 'go1.27.3';
const MODULE = 'go.temporal.io/server';

export interface ClusterTools {
  /** `temporal-server`: the server (cmd/server). */
  readonly server: string;
  /** `temporal-sql-tool`: creates databases and applies the schema (cmd/tools/sql). */
  readonly sqlTool: string;
  /** The server's PostgreSQL schema: `temporal/versioned` and `visibility/versioned` under it. */
  readonly schemaDir: string;
  /** PostgreSQL's programs (initdb, pg_ctl, postgres). */
  readonly postgresBin: string;
}

/**
 * Build the server and its SQL tool with `go install` into the machine's tool cache, unless a build
 * is there (one under way in another process, such as `npm test`'s background build, is waited
 * for); copy the schema beside them.
 */
export async function ensureServer(log: (line: string) => void): Promise<Omit<ClusterTools, 'postgresBin'>> {
  const dir = toolDir('temporal-server', TEMPORAL_SERVER_VERSION);
  const bin = path.join(dir, 'bin');
  const tools = {
    server: path.join(bin, 'server'),
    sqlTool: path.join(bin, 'sql'),
    schemaDir: path.join(dir, 'schema'),
  };
  return withToolLock(
    dir,
    async () =>
      (await executable(tools.server)) && (await executable(tools.sqlTool)) && (await executable(tools.schemaDir))
        ? tools
        : undefined,
    () => buildServer(bin, tools, log),
    (holder) => log(`waiting for process ${holder}, which is building the Temporal server into ${dir}`),
  );
}

async function buildServer(
  bin: string,
  tools: Omit<ClusterTools, 'postgresBin'>,
  log: (line: string) => void,
): Promise<Omit<ClusterTools, 'postgresBin'>> {
  if ((await execa('go', ['version'], { reject: false })).exitCode !== 0)
    throw new Error(
      `the cluster tests build the Temporal server ${TEMPORAL_SERVER_VERSION} with Go, and no 'go' is on PATH: install Go (any recent release; it fetches ${GO_TOOLCHAIN} itself)`,
    );
  await mkdir(bin, { recursive: true });
  const env = { GOTOOLCHAIN: GO_TOOLCHAIN, GOBIN: bin, GOFLAGS: '-buildvcs=false' };
  for (const command of ['cmd/server', 'cmd/tools/sql']) {
    const started = Date.now();
    log(
      `go install ${MODULE}/${command}@${TEMPORAL_SERVER_VERSION} (GOTOOLCHAIN=${GO_TOOLCHAIN}; minutes the first time)`,
    );
    const built = await execa('go', ['install', `${MODULE}/${command}@${TEMPORAL_SERVER_VERSION}`], {
      env,
      all: true,
      reject: false,
      timeout: 40 * 60_000,
    });
    if (built.exitCode !== 0)
      throw new Error(`go install ${MODULE}/${command}@${TEMPORAL_SERVER_VERSION} failed:\n${built.all.slice(-4000)}`);
    log(`built in ${Math.round((Date.now() - started) / 1000)} s`);
  }
  // The schema files are in the module's source, which `go install` left in the module cache.
  const { stdout: modCache } = await execa('go', ['env', 'GOMODCACHE'], { env });
  const source = path.join(modCache.trim(), `${MODULE}@${TEMPORAL_SERVER_VERSION}`, 'schema', 'postgresql', 'v12');
  await rm(tools.schemaDir, { recursive: true, force: true });
  await cp(source, tools.schemaDir, { recursive: true });
  // The module cache is read-only; the copy need not be (a later provision replaces it).
  await execa('chmod', ['-R', 'u+w', tools.schemaDir]);
  return tools;
}

/** PostgreSQL's bin folder: Debian's newest under /usr/lib/postgresql, installed with apt-get when there is none. */
async function ensurePostgres(log: (line: string) => void): Promise<string> {
  const found = async (): Promise<string | null> => {
    const versions = await readdir('/usr/lib/postgresql').catch(() => []);
    const newest = versions
      .map(Number)
      .filter(Number.isInteger)
      .sort((a, b) => b - a)[0];
    const bin = newest === undefined ? null : path.join('/usr/lib/postgresql', String(newest), 'bin');
    return bin !== null && (await executable(path.join(bin, 'pg_ctl'))) ? bin : null;
  };
  const bin = await found();
  if (bin !== null) return bin;
  log('apt-get install postgresql (Debian)');
  const installed = await execa('apt-get', ['install', '-y', '--no-install-recommends', 'postgresql'], {
    env: { DEBIAN_FRONTEND: 'noninteractive' },
    all: true,
    reject: false,
    timeout: 15 * 60_000,
  });
  const after = await found();
  if (after === null)
    throw new Error(
      `the cluster tests need PostgreSQL (initdb, pg_ctl) and apt-get could not install it: install Debian's postgresql package.\n${installed.all?.slice(-2000) ?? ''}`,
    );
  return after;
}

export async function ensureClusterTools(log: (line: string) => void): Promise<ClusterTools> {
  const [server, postgresBin] = await Promise.all([ensureServer(log), ensurePostgres(log)]);
  return { ...server, postgresBin };
}
