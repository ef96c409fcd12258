// A real OTLP receiver for the tracing test: Jaeger v2 (an OpenTelemetry collector with Jaeger's
// in-memory storage and query API), built from the Go module proxy (../lib/go-program.ts) into the
// machine's tool cache. No registry the project reaches ships a Jaeger binary (PyPI, npm and Debian
// have clients only), so it is built: `npm test` starts the build in the background
// (scripts/tools/background.mjs) and only the tracing test waits for it.
import { ensureGoProgram, type GoProgram } from '../lib/go-program.js';

const JAEGER: GoProgram = {
  name: 'Jaeger',
  neededBy: 'the tracing test',
  module: 'github.com/jaegertracing/jaeger',
  version: 'v1.76.0',
  main: './cmd/jaeger',
  binary: 'jaeger',
  tools: 'jaeger',
  firstBuild: 'about 13 minutes on 2 cores',
};

/** `jaeger`, built once per machine (a build under way elsewhere is waited for); its path. */
export function ensureJaeger(log: (line: string) => void): Promise<string> {
  return ensureGoProgram(JAEGER, log);
}
