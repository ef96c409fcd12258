// Issue 48, item 2: a damaged object in the artifact store (its bytes not the sha256 a row names)
// made each step that fetched it wait, "changed or damaged in the store; trying again in 60 s",
// until the step's timeout (6 h for an evaluation), holding its lane. A damaged object does not
// heal: the fetch tries once more, then fails the step for good, naming the object and what to
// do. A store that is down stays a wait. Real S3 server (SeaweedFS).
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blobKey } from '../../src/artifacts/file-store.js';
import { ObjectStore } from '../../src/artifacts/object-store.js';
import type { ArtifactSettings } from '../../src/artifacts/store-settings.js';
import { fetchStepFiles, uploadStepFiles } from '../../src/activities/support/step-files.js';
import { startObjectStore, type ObjectStoreServer } from '../helpers/object-store.js';

describe('a step fetching from the artifact store', () => {
  let server: ObjectStoreServer;
  let settings: ArtifactSettings;
  let dir: string;
  const saved = { ...process.env };

  beforeAll(async () => {
    server = await startObjectStore();
    await server.bucket('fleet');
    Object.assign(process.env, server.env);
    settings = { url: 's3://fleet/gate', endpoint: server.endpoint };
    dir = await mkdtemp(path.join(tmpdir(), 'champion-loop-damaged-'));
  }, 180_000);

  afterAll(async () => {
    server?.resume();
    await server?.dispose();
    process.env = saved;
    await rm(dir, { recursive: true, force: true });
  });

  /** A file put in the store by content, then gone from this host (a host that never had it). */
  const stored = async (name: string, text: string) => {
    const file = path.join(dir, name);
    await writeFile(file, text);
    const [ref] = await uploadStepFiles(settings, [file], path.join(dir, 'upload.log'));
    await rm(file);
    return ref!;
  };

  it('an object overwritten in the store: the step fails within seconds, naming the object and what to do; nothing written', async () => {
    const ref = await stored('checkpoint-0001.pt', 'the trained weights');
    const store = new ObjectStore(settings);
    const key = blobKey(store, ref.sha256);
    await store.putBytes(key, Buffer.from('overwritten by someone else'));
    store.close();
    const log = path.join(dir, 'evaluate.log');
    const started = Date.now();
    const failed = await fetchStepFiles(settings, [ref], log).then(
      () => null,
      (error: unknown) => error,
    );
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(failed).toBeInstanceOf(ApplicationFailure);
    const failure = failed as ApplicationFailure;
    expect(failure.nonRetryable).toBe(true);
    expect(failure.type).toBe('DamagedObjectError');
    expect(failure.message).toContain(`artifact store: s3://fleet/${key} has sha256 `);
    expect(failure.message).toContain(`not the ${ref.sha256} its manifest names`);
    expect(failure.message).toContain('train the run again');
    expect(failure.message).toContain('upload the file again');
    // The step's log says it too: once the retry, then the failure.
    const said = await readFile(log, 'utf8');
    expect(said).toMatch(/changed or damaged in the store; .*trying again in 1 s/);
    expect(said).toContain('A damaged object does not heal');
    await expect(readFile(ref.path)).rejects.toThrow(/ENOENT/);
  });

  it('a store that is down stays a wait: the fetch goes through once it is back', async () => {
    const ref = await stored('config.yaml', 'epochs: 3\n');
    await server.kill();
    let settled = false;
    const fetching = fetchStepFiles(settings, [ref], path.join(dir, 'train.log')).finally(() => (settled = true));
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    expect(settled).toBe(false);
    await server.restart();
    await fetching;
    expect(await readFile(ref.path, 'utf8')).toBe('epochs: 3\n');
  }, 180_000);
});
