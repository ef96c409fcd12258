// A real MLflow tracking server for the registry tests: MLflow is installed with pip when missing
// (as pyyaml.ts provisions PyYAML, and the test set-up the Temporal CLI), then `mlflow server` runs
// on localhost with a SQLite store in a temp folder. Installing takes about 40 s on this machine
// (measured: 39.6 s, MLflow 3.17); starting the server about 12 s.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** Makes sure `import mlflow` works, installing it with pip once; throws saying what to do when it cannot. */
export function provisionMlflow(): void {
  const python = spawnSync('python3', ['--version'], { encoding: 'utf8' });
  if (python.error !== undefined || python.status !== 0) {
    throw new Error('python3 is not installed: the MLflow registry tests need it (and pip) to run mlflow server');
  }
  if (spawnSync('python3', ['-c', 'import mlflow'], { encoding: 'utf8' }).status === 0) return;
  const started = Date.now();
  const pip = spawnSync('python3', ['-m', 'pip', 'install', '--quiet', 'mlflow'], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (pip.status !== 0) {
    throw new Error(`MLflow is missing and "python3 -m pip install mlflow" failed:\n${pip.stderr}`);
  }
  console.info(`installed mlflow with pip in ${Math.round((Date.now() - started) / 1000)} s`);
}

/** A localhost port nothing listens on right now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface MlflowServer {
  readonly uri: string;
  stop(): Promise<void>;
}

/** `mlflow server` on 127.0.0.1:port with a SQLite store in a temp folder, once its /health answers. */
export async function startMlflowServer(port: number, timeoutMs = 120_000): Promise<MlflowServer> {
  const dir = await mkdtemp(path.join(tmpdir(), 'champion-loop-mlflow-'));
  const uri = `http://127.0.0.1:${port}`;
  let output = '';
  // Its own process group: `mlflow server` runs uvicorn as a child, and both must go at the end.
  const child: ChildProcess = spawn(
    'python3',
    [
      ...['-m', 'mlflow', 'server'],
      ...['--backend-store-uri', `sqlite:///${path.join(dir, 'mlflow.db')}`],
      ...['--default-artifact-root', path.join(dir, 'artifacts')],
      ...['--host', '127.0.0.1', '--port', String(port), '--workers', '1'],
    ],
    { cwd: dir, detached: true, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        // Gone already.
      }
      const killed = setTimeout(() => {
        try {
          if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
        } catch {
          // Gone already.
        }
      }, 10_000);
      await exited;
      clearTimeout(killed);
    }
    await rm(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) break;
    const healthy = await fetch(`${uri}/health`, { signal: AbortSignal.timeout(2_000) }).then(
      (response) => response.ok,
      () => false,
    );
    if (healthy) return { uri, stop };
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  await stop();
  throw new Error(`mlflow server on ${uri} did not become healthy within ${timeoutMs} ms:\n${output}`);
}

export interface ModelVersion {
  readonly version: string;
  readonly source: string;
  readonly tags: Readonly<Record<string, string>>;
  readonly aliases: readonly string[];
}

async function getJson(uri: string, route: string, query: Record<string, string>): Promise<unknown> {
  const response = await fetch(`${uri}/api/2.0/mlflow/${route}?${new URLSearchParams(query).toString()}`);
  const body: unknown = await response.json();
  if (!response.ok) throw new Error(`GET ${route}: ${response.status} ${JSON.stringify(body)}`);
  return body;
}

type RawVersion = { version: string; source: string; tags?: { key: string; value: string }[]; aliases?: string[] };

function versionOf(raw: RawVersion): ModelVersion {
  return {
    version: raw.version,
    source: raw.source,
    tags: Object.fromEntries((raw.tags ?? []).map((tag) => [tag.key, tag.value])),
    aliases: raw.aliases ?? [],
  };
}

/** Every version of a registered model, oldest first (none when the model does not exist). */
export async function modelVersions(uri: string, name: string): Promise<ModelVersion[]> {
  const body = (await getJson(uri, 'model-versions/search', {
    filter: `name='${name}'`,
    max_results: '1000',
  })) as { model_versions?: RawVersion[] };
  return (body.model_versions ?? []).map(versionOf).sort((a, b) => Number(a.version) - Number(b.version));
}

/** The version an alias points to, read through MLflow's alias endpoint; null when it points nowhere. */
export async function versionByAlias(uri: string, name: string, alias: string): Promise<ModelVersion | null> {
  try {
    const body = (await getJson(uri, 'registered-models/alias', { name, alias })) as { model_version: RawVersion };
    return versionOf(body.model_version);
  } catch {
    return null;
  }
}
