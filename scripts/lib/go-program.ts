// A Go program the tests need (Jaeger; SeaweedFS's `weed` where PyPI's wheel cannot be had), built
// from the Go module proxy into the machine's tool cache (./tool-cache.ts:
// ~/.cache/champion-loop/tools/<tools>-<version>/bin), shared by every clone. Their go.mod files hold replace
// directives, which `go install module@version` refuses, so the module's source is downloaded
// (`go mod download`), copied out of the read-only module cache and built there as the main module.
import { access, constants, cp, mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { toolDir, withToolLock } from './tool-cache.js';

export interface GoProgram {
  /** What it is, for messages: `SeaweedFS weed`. */
  readonly name: string;
  /** Who needs it, for the message when Go is missing: `the artifact store tests`. */
  readonly neededBy: string;
  readonly module: string;
  readonly version: string;
  /** The package to build, relative to the module's root: `./weed`. */
  readonly main: string;
  /** The binary's name under <tool cache>/<tools>-<version>/bin. */
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

/** Where the program's binary is once built. */
function goProgramBinary(program: Pick<GoProgram, 'tools' | 'version' | 'binary'>): string {
  return path.join(toolDir(program.tools, program.version), 'bin', program.binary);
}

/**
 * The program's binary, built once per machine (a build another process is making is waited for);
 * its path. Throws saying what to do when Go is missing or the build fails.
 */
export async function ensureGoProgram(program: GoProgram, log: (line: string) => void): Promise<string> {
  const tools = toolDir(program.tools, program.version);
  const binary = goProgramBinary(program);
  return withToolLock(
    tools,
    async () => ((await executable(binary)) ? binary : undefined),
    () => buildGoProgram(program, tools, binary, log),
    (holder) =>
      log(`waiting for process ${holder}, which is building ${program.name} ${program.version} into ${tools}`),
  );
}

async function buildGoProgram(
  program: GoProgram,
  tools: string,
  binary: string,
  log: (line: string) => void,
): Promise<string> {
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
  log(`built ${program.binary} in ${Math.round((Date.now() - started) / 1000)} s: ${binary}`);
  return binary;
}
