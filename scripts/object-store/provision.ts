// A real S3-compatible server for the artifact store tests: SeaweedFS's `weed`, built from the Go
// module proxy (../lib/go-program.ts).
import { ensureGoProgram } from '../lib/go-program.js';

/** `weed`, built once; its path. */
export function ensureWeed(log: (line: string) => void): Promise<string> {
  return ensureGoProgram(
    {
      name: 'SeaweedFS weed',
      neededBy: 'the artifact store tests',
      module: 'github.com/seaweedfs/seaweedfs',
      // The SeaweedFS commit the tests run (the module proxy serves it as a pseudo-version).
      version: 'v0.0.0-20261109003541-7506e5f91cd6',
      main: './weed',
      binary: 'weed',
      tools: 'seaweedfs',
      firstBuild: 'minutes',
    },
    log,
  );
}
