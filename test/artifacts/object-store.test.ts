// The artifact store against a real S3-compatible server (SeaweedFS): packages in and out by
// sha256, an object changed behind the loop's back, a package whose upload never finished, an
// upload killed with SIGKILL halfway, and a store that is down while a package waits to upload.
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DeleteObjectCommand, ListMultipartUploadsCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ArtifactStoreError, ObjectStore } from '../../src/artifacts/object-store.js';
import { fetchPackage, PACKAGE_MANIFEST, packageKey, putPackage } from '../../src/artifacts/package-store.js';
import { storeLocation, type ArtifactSettings } from '../../src/artifacts/store-settings.js';
import { uploadPackage } from '../../src/activities/support/package-upload.js';
import { PROJECT_ROOT } from '../../src/devserver/project-root.js';
import { startObjectStore, type ObjectStoreServer } from '../helpers/object-store.js';

const BUCKET = 'loop-artifacts';

describe('the artifact store (a real S3-compatible server)', () => {
  let server: ObjectStoreServer;
  let settings: ArtifactSettings;
  let store: ObjectStore;
  let dir: string;
  const saved = { ...process.env };

  beforeAll(async () => {
    server = await startObjectStore();
    await server.bucket(BUCKET);
    Object.assign(process.env, server.env);
    settings = { url: `s3://${BUCKET}/team/gate`, endpoint: server.endpoint };
    store = new ObjectStore(settings);
    dir = await mkdtemp(path.join(tmpdir(), 'champion-loop-store-'));
  }, 180_000);

  afterAll(async () => {
    store?.close();
    process.env = saved;
    await server?.dispose();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** A package folder as a package command makes one: nested files, one empty. */
  async function packageFolder(name: string): Promise<string> {
    const folder = path.join(dir, name);
    await mkdir(path.join(folder, 'members'), { recursive: true });
    await writeFile(path.join(folder, 'model.json'), JSON.stringify({ weights: [1, 2, 3], name }));
    await writeFile(path.join(folder, 'members', 'member-00.yaml'), `name: ${name}\n`);
    await writeFile(path.join(folder, 'empty.txt'), '');
    return folder;
  }

  it('reads s3:// URLs as bucket and prefix, and refuses what is not one', () => {
    expect(storeLocation('s3://bucket')).toEqual({ bucket: 'bucket', prefix: '' });
    expect(storeLocation('s3://bucket/a/b/')).toEqual({ bucket: 'bucket', prefix: 'a/b/' });
    expect(storeLocation('s3://Bucket/a')).toBeNull();
    expect(storeLocation('http://bucket/a')).toBeNull();
    expect(storeLocation('s3://bucket/a/../b')).toBeNull();
  });

  it('stores a package under the champion key and fetches it back, every file checked by sha256', async () => {
    const folder = await packageFolder('g001.champ');
    const champion = {
      loopId: 'gate',
      generation: 1,
      run_id: 'champ-g001-r0001-base',
      checkpoint_name: 'checkpoint-0003.json',
    };
    const key = packageKey(store, champion);
    expect(key).toBe('team/gate/packages/gate/g001/champ-g001-r0001-base/checkpoint-0003.json/');
    const stored = await putPackage(store, key, folder);
    expect(stored).toMatchObject({ uri: `s3://${BUCKET}/${key.slice(0, -1)}`, files: 3 });
    expect(stored.bytes).toBe((await readFile(path.join(folder, 'model.json'))).length + 'name: g001.champ\n'.length);
    // The same again (a retried activity): the same package, the same manifest.
    expect(await putPackage(store, key, folder)).toEqual(stored);

    const fetched = path.join(dir, 'fetched');
    expect(await fetchPackage(store, stored.uri, fetched)).toEqual({ files: 3, bytes: stored.bytes });
    for (const file of ['model.json', 'members/member-00.yaml', 'empty.txt'])
      expect(await readFile(path.join(fetched, file))).toEqual(await readFile(path.join(folder, file)));
  });

  it('names the object whose bytes differ from its manifest, and writes nothing in its place', async () => {
    const folder = await packageFolder('changed');
    const key = store.key('packages/changed/');
    const stored = await putPackage(store, key, folder);
    const client = server.client();
    await client.send(new PutObjectCommand({ Bucket: BUCKET, Key: `${key}model.json`, Body: 'not the model' }));
    client.destroy();
    const into = path.join(dir, 'changed-fetch');
    const error = await fetchPackage(store, stored.uri, into).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ArtifactStoreError);
    expect(String(error)).toContain(`s3://${BUCKET}/${key}model.json has sha256`);
    await expect(readFile(path.join(into, 'model.json'))).rejects.toThrow(/ENOENT/);
  });

  it('takes no package without its manifest as whole (an upload cut short)', async () => {
    const folder = await packageFolder('cut');
    const key = store.key('packages/cut/');
    const stored = await putPackage(store, key, folder);
    const client = server.client();
    await client.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: `${key}${PACKAGE_MANIFEST}` }));
    client.destroy();
    await expect(fetchPackage(store, stored.uri, path.join(dir, 'cut-fetch'))).rejects.toThrow(
      /no whole package at .*its manifest .* is missing/,
    );
    await expect(fetchPackage(store, 's3://another-bucket/x', dir)).rejects.toThrow(
      /not a package in the loop's store/,
    );
  });

  it('leaves no object behind an upload killed with SIGKILL halfway, and uploads it whole on the next try', async () => {
    // 96 MiB goes up in 5 MiB parts of a multipart upload; the uploader holds the upload once one
    // part has landed (upload-child.ts) and is killed there.
    const big = path.join(dir, 'big.bin');
    await writeFile(big, randomBytes(96 * 1024 * 1024));
    const key = store.key('killed/big.bin');
    const script = path.join(PROJECT_ROOT, 'test', 'artifacts', 'upload-child.ts');
    const child = spawn(process.execPath, ['--import', 'tsx', script, JSON.stringify(settings), key, big], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, ...server.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    await expect
      .poll(() => (child.exitCode === null ? stdout : `exited ${child.exitCode}: ${stderr}`), { timeout: 120_000 })
      .toContain('part landed');
    const client = server.client();
    const listed = await client.send(new ListMultipartUploadsCommand({ Bucket: BUCKET, Prefix: key }));
    expect((listed.Uploads ?? []).length, `a multipart upload in flight (uploader: ${stderr})`).toBe(1);
    child.kill('SIGKILL');
    expect(await exited).toBeNull();
    client.destroy();
    // Nothing a reader could take: no object under the key at all.
    expect(await store.storedSha256(key)).toBeNull();
    const again = await store.putFile(key, big);
    const sha256 = createHash('sha256')
      .update(await readFile(big))
      .digest('hex');
    expect(again.sha256).toBe(sha256);
    expect(await store.storedSha256(key)).toBe(sha256);
    await store.getFile(key, path.join(dir, 'big-back.bin'), sha256);
  }, 180_000);

  it('waits for a store that is down, saying so in the package log, and uploads once it is back', async () => {
    const folder = await packageFolder('later');
    const log = path.join(dir, 'package-later.log');
    await server.kill();
    const champion = {
      generation: 2,
      run_id: 'champ-g002-r0001-base',
      epoch: 4,
      checkpoint_name: 'checkpoint-0004.json',
      checkpoint: 'x',
      config_path: 'y',
      eval_json: 'z',
      requested: new Date().toISOString(),
    };
    const upload = uploadPackage(settings, { loopId: 'gate', champion }, folder, log);
    // At least two failed tries (1 s, then 2 s apart) while it is down.
    const deadline = Date.now() + 60_000;
    let tries = 0;
    while (tries < 2 && Date.now() < deadline) {
      await sleep(250);
      tries = ((await readFile(log, 'utf8').catch(() => '')).match(/trying again in/g) ?? []).length;
    }
    expect(tries).toBeGreaterThanOrEqual(2);
    expect(await readFile(log, 'utf8')).toMatch(
      /artifact store: cannot look up s3:\/\/loop-artifacts\/team\/gate\/packages\/gate\/g002\//,
    );
    await server.restart();
    const stored = await upload;
    expect(stored.uri).toBe(`s3://${BUCKET}/team/gate/packages/gate/g002/champ-g002-r0001-base/checkpoint-0004.json`);
    expect(await readFile(log, 'utf8')).toContain(`artifacts: package uploaded to ${stored.uri} (3 files`);
    await fetchPackage(store, stored.uri, path.join(dir, 'later-fetch'));
  }, 180_000);
});
