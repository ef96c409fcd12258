// A real OTLP receiver for the tracing test: Jaeger v2 (an OpenTelemetry collector with Jaeger's
// storage and query API), built from the Go module proxy and cached under .tools as the Temporal
// server and SeaweedFS are. Its go.mod has replace directives, which `go install module@version`
// refuses, so the module's source is downloaded, copied out of the read-only module cache and
// built there as the main module.
import { access, constants, cp, mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { PROJECT_ROOT } from '../../src/devserver/project-root.js';

const JAEGER_VERSION = 'v1.76.0';
const MODULE = 'github.com/jaegertracing/jaeger';

const TOOLS = path.join(PROJECT_ROOT, '.tools', 'jaeger', JAEGER_VERSION);

async function executable(file: string): Promise<boolean> {
  return access(file, constants.X_OK).then(
    () => true,
    () => false,
  );
}

/** `jaeger`, built once; its path. Throws saying what to do when Go is missing or the build fails. */
export async function ensureJaeger(log: (line: string) => void): Promise<string> {
  const jaeger = path.join(TOOLS, 'bin', 'jaeger');
  if (await executable(jaeger)) return jaeger;
  if ((await execa('go', ['version'], { reject: false })).exitCode !== 0)
    throw new Error(
      `the tracing test builds Jaeger (${MODULE}) with Go, and no 'go' is on PATH: install Go 1.26 or newer`,
    );
  const started = Date.now();
  log(`building Jaeger ${JAEGER_VERSION} from the Go module proxy (about 13 minutes on 2 cores the first time)`);
  const downloaded = await execa('go', ['mod', 'download', '-json', `${MODULE}@${JAEGER_VERSION}`], {
    reject: false,
    all: true,
  });
  if (downloaded.exitCode !== 0)
    throw new Error(`go mod download ${MODULE}@${JAEGER_VERSION} failed:\n${downloaded.all}`);
  const { Dir: moduleDir } = JSON.parse(downloaded.stdout) as { Dir: string };
  const source = path.join(TOOLS, 'src');
  await rm(source, { recursive: true, force: true });
  await mkdir(path.join(TOOLS, 'bin'), { recursive: true });
  await cp(moduleDir, source, { recursive: true });
  await execa('chmod', ['-R', 'u+w', source]);
  const partial = `${jaeger}.part`;
  const built = await execa('go', ['build', '-o', partial, './cmd/jaeger'], {
    cwd: source,
    env: { GOFLAGS: '-buildvcs=false' },
    all: true,
    reject: false,
    timeout: 60 * 60_000,
  });
  if (built.exitCode !== 0) throw new Error(`building Jaeger failed:\n${built.all.slice(-4000)}`);
  await execa('mv', [partial, jaeger]);
  await rm(source, { recursive: true, force: true });
  log(`built jaeger in ${Math.round((Date.now() - started) / 1000)} s`);
  return jaeger;
}
