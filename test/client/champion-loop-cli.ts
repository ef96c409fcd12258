import { fileURLToPath } from 'node:url';
import { execa, type Options } from 'execa';
import type { TestServer } from '../helpers/test-server.js';

/** bin/champion-loop.js, the command as installed. */
const BIN = fileURLToPath(new URL('../../bin/champion-loop.js', import.meta.url));

/** Run `champion-loop ARGS` as a person would; never throws, the result says how it ended. */
export function championLoop(args: readonly string[], options: Options = {}) {
  return execa(process.execPath, [BIN, ...args], { reject: false, timeout: 60_000, ...options });
}

/** Run `champion-loop ARGS --address A --namespace N` against a test server. */
export function championLoopAt(
  server: Pick<TestServer, 'address' | 'namespace'>,
  args: readonly string[],
  options: Options = {},
) {
  return championLoop([...args, '--address', server.address, '--namespace', server.namespace], options);
}
