// A real S3-compatible server for a test file (scripts/object-store/server.ts), with the `weed`
// the test set-up built (test/global-setup.ts).
import { afterAll, beforeAll, inject } from 'vitest';
import type { ArtifactSettings } from '../../src/artifacts/store-settings.js';
import { startObjectStore as startServer, type ObjectStoreServer } from '../../scripts/object-store/server.js';

export type { ObjectStoreServer };

export function startObjectStore(options: { weed?: string; readyMs?: number } = {}): Promise<ObjectStoreServer> {
  return startServer({ ...options, weed: options.weed ?? inject('weedBinary') });
}

/**
 * A store for one test file's loops: started before its tests, its credentials in this process's
 * environment (each worker, in-process or a child process, takes them as a host's workers
 * would), the bucket `fleet`, the loop settings `s3://fleet/gate`. After the tests `disposeLoops`
 * runs first, then the environment is restored and the server goes.
 */
export function storeForFile(disposeLoops: () => Promise<void>): {
  readonly server: ObjectStoreServer;
  readonly artifacts: ArtifactSettings;
} {
  const saved = { ...process.env };
  let started: { server: ObjectStoreServer; artifacts: ArtifactSettings } | undefined;
  const get = () => {
    if (started === undefined) throw new Error('the store starts in beforeAll');
    return started;
  };
  beforeAll(async () => {
    const server = await startObjectStore();
    await server.bucket('fleet');
    Object.assign(process.env, server.env);
    started = { server, artifacts: { url: 's3://fleet/gate', endpoint: server.endpoint } };
  }, 180_000);
  afterAll(async () => {
    started?.server.resume();
    await disposeLoops();
    process.env = saved;
    await started?.server.dispose();
  });
  return {
    get server() {
      return get().server;
    },
    get artifacts() {
      return get().artifacts;
    },
  };
}
