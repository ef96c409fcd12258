// A real S3-compatible server for a test file (scripts/object-store/server.ts), with the `weed`
// the test set-up built (test/global-setup.ts).
import { inject } from 'vitest';
import { startObjectStore as startServer, type ObjectStoreServer } from '../../scripts/object-store/server.js';

export type { ObjectStoreServer };

export function startObjectStore(options: { weed?: string; readyMs?: number } = {}): Promise<ObjectStoreServer> {
  return startServer({ ...options, weed: options.weed ?? inject('weedBinary') });
}
