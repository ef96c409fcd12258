// A Go program the tests need (SeaweedFS's `weed`, Jaeger), built from the Go module proxy and
// cached under .tools as the Temporal CLI and server are. Their go.mod files hold replace
// directives, which `go install module@version` refuses, so the module's source is downloaded
// (`go mod download`), copied out of the read-only module cache and built there as the main module.
import { access, constants, cp, mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { PROJECT_ROOT } from '../../src/devserver/project-root.js';

export interface GoProgram {
  /** What it is, for messages: `SeaweedFS weed`. */
  readonly name: string;
  /** Who needs it, for the message when Go is missing: `the artifact store tests`. */
  readonly neededBy: string;
  readonly module: string;
  readonly version: string;
  /** The package to build, relative to the module's root: `./weed`. */
  readonly main: string;
  /** The binary's name under .tools/<tools>/<version>/bin. */
  readonly binary: string;
  readonly tools: string;
  /** How long the first build takes, for the message: `6.5 minutes`. */
  readonly firstBuild: string;
}

/** Whether `file` exists and may be run. */
export async function executable(file: string): Promise<boolean> {
  return access(file, constants.X_OK).then(
    () => true,
    () => false,
  );
}

/** The program's binary, built once; its path. Throws saying what to do when Go is missing or the build fails. */
export async function ensureGoProgram(program: GoProgram, log: (line: string) => void): Promise<string> {
  const tools = path.join(PROJECT_ROOT, '.tools', program.tools, program.version);
  const binary = path.join(tools, 'bin', program.binary);
  if (await executable(binary)) return binary;
  if ((await execa('go', ['version'], { reject: false })).exitCode !== 0)
    throw new Error(
      `${program.neededBy} build ${program.name} (${program.module}) with Go, and no 'go' is on PATH: install Go 1.26 or newer`,
    );
  const started = Date.now();
  log(`building ${program.name} ${program.version} from the Go module proxy (${program.firstBuild} the first time)`);
  const where = `${program.module}@${program.version}`;
  const downloaded = await execa('go', ['mod', 'download', '-json', where], { reject: false, all: true });
  if (downloaded.exitCode !== 0) throw new Error(`go mod download ${where} failed:\n${downloaded.all}`);
  const { Dir: moduleDir } = JSON.parse(downloaded.stdout) as { Dir: string };
  const source = path.join(tools, 'src');
  await rm(source, { recursive: true, force: true });
  await mkdir(path.join(tools, 'bin'), { recursive: true });
  await cp(moduleDir, source, { recursive: true });
  await execa('chmod', ['-R', 'u+w', source]);
  const partial = `${binary}.part`;
  const built = await execa('go', ['build', '-o', partial, program.main], {
    cwd: source,
    env: { GOFLAGS: '-buildvcs=false' },
    all: true,
    reject: false,
    timeout: 60 * 60_000,
  });
  if (built.exitCode !== 0) throw new Error(`building ${program.name} failed:\n${built.all.slice(-4000)}`);
  await execa('mv', [partial, binary]);
  // The source is only needed to build; the binary is what is kept.
  await rm(source, { recursive: true, force: true });
  log(`built ${program.binary} in ${Math.round((Date.now() - started) / 1000)} s`);
  return binary;
}
