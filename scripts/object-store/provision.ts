// A real S3-compatible server for the artifact store tests: SeaweedFS's `weed`, built from the
// Go module proxy and cached under .tools (as the Temporal CLI and server are). Its go.mod has a
// replace directive, which `go install module@version` refuses, so the module's source is
// downloaded (`go mod download`), copied out of the read-only module cache and built there as the
// main module.
import { access, constants, cp, mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { PROJECT_ROOT } from '../../src/devserver/project-root.js';

/** The SeaweedFS commit the tests run (the module proxy serves it as a pseudo-version). */
const SEAWEEDFS_VERSION = 'v0.0.0-20261109003541-7506e5f91cd6';
const MODULE = 'github.com/seaweedfs/seaweedfs';

const TOOLS = path.join(PROJECT_ROOT, '.tools', 'seaweedfs', SEAWEEDFS_VERSION);

async function executable(file: string): Promise<boolean> {
  return access(file, constants.X_OK).then(
    () => true,
    () => false,
  );
}

/** `weed`, built once; its path. Throws saying what to do when Go is missing or the build fails. */
export async function ensureWeed(log: (line: string) => void): Promise<string> {
  const weed = path.join(TOOLS, 'bin', 'weed');
  if (await executable(weed)) return weed;
  if ((await execa('go', ['version'], { reject: false })).exitCode !== 0)
    throw new Error(
      `the artifact store tests build SeaweedFS (${MODULE}) with Go, and no 'go' is on PATH: install Go 1.26 or newer`,
    );
  const started = Date.now();
  log(`building SeaweedFS weed ${SEAWEEDFS_VERSION} from the Go module proxy (minutes the first time)`);
  const downloaded = await execa('go', ['mod', 'download', '-json', `${MODULE}@${SEAWEEDFS_VERSION}`], {
    reject: false,
    all: true,
  });
  if (downloaded.exitCode !== 0)
    throw new Error(`go mod download ${MODULE}@${SEAWEEDFS_VERSION} failed:\n${downloaded.all}`);
  const { Dir: moduleDir } = JSON.parse(downloaded.stdout) as { Dir: string };
  const source = path.join(TOOLS, 'src');
  await rm(source, { recursive: true, force: true });
  await mkdir(TOOLS, { recursive: true });
  await cp(moduleDir, source, { recursive: true });
  await execa('chmod', ['-R', 'u+w', source]);
  const partial = `${weed}.part`;
  const built = await execa('go', ['build', '-o', partial, './weed'], {
    cwd: source,
    env: { GOFLAGS: '-buildvcs=false' },
    all: true,
    reject: false,
    timeout: 40 * 60_000,
  });
  if (built.exitCode !== 0) throw new Error(`building SeaweedFS weed failed:\n${built.all.slice(-4000)}`);
  await execa('mv', [partial, weed]);
  // The source is only needed to build; the binary is what is kept.
  await rm(source, { recursive: true, force: true });
  log(`built weed in ${Math.round((Date.now() - started) / 1000)} s`);
  return weed;
}
