// A real OTLP receiver for the tracing test: Jaeger v2 (an OpenTelemetry collector with Jaeger's
// in-memory storage and query API), built from the Go module proxy (../lib/go-program.ts).
import { ensureGoProgram } from '../lib/go-program.js';

/** `jaeger`, built once; its path. */
export function ensureJaeger(log: (line: string) => void): Promise<string> {
  return ensureGoProgram(
    {
      name: 'Jaeger',
      neededBy: 'the tracing test',
      module: 'github.com/jaegertracing/jaeger',
      version: 'v1.76.0',
      main: './cmd/jaeger',
      binary: 'jaeger',
      tools: 'jaeger',
      firstBuild: 'about 13 minutes on 2 cores',
    },
    log,
  );
}
