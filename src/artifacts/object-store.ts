// The loop's artifact store: an S3-compatible bucket under a prefix (loop.yaml `artifacts:`,
// docs/artifacts.md), through the AWS SDK. Each object carries its sha256 in its metadata; a
// fetch checks the bytes it got against the sha256 its reader expects and names the object when
// they differ. Uploads go through the SDK's multipart Upload: an object appears whole or not at all.
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { GetObjectCommand, HeadObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { objectUri, storeLocation, type ArtifactSettings } from './store-settings.js';
import { definedFields } from '../support/defined-fields.js';

/** One object in the store, as a row or a manifest names it. */
export interface StoredObject {
  readonly uri: string;
  readonly sha256: string;
  readonly bytes: number;
}

/** The store could not be reached or refused a request, or an object is not what its reader expected. */
export class ArtifactStoreError extends Error {
  override readonly name: string = 'ArtifactStoreError';
}

/**
 * An object whose bytes are not the sha256 its reader expects: changed or damaged in the store.
 * Unlike a store that is down, trying again does not mend it (issue 48): a step fails naming it.
 */
export class DamagedObjectError extends ArtifactStoreError {
  override readonly name: string = 'DamagedObjectError';

  constructor(
    message: string,
    /** The object, as `s3://bucket/key`. */
    readonly uri: string,
  ) {
    super(message);
  }
}

/** The sha256 (hex) of a file's bytes, read as a stream. */
async function fileSha256(file: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(file), hash);
  return hash.digest('hex');
}

const SHA256_META = 'sha256';

function describe(error: unknown): string {
  if (error instanceof S3ServiceException) return `${error.name}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}

export class ObjectStore {
  private readonly client: S3Client;
  readonly bucket: string;
  /** The key prefix every key of this loop goes under ('' or ending in '/'). */
  readonly prefix: string;

  constructor(settings: ArtifactSettings) {
    // The SDK tells every Node 20 process, on stderr, that its releases after January 2027 need
    // Node 22. package.json pins a release that runs on 20 (docs/limits.md): the notice says nothing a user can act on.
    process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
    const location = storeLocation(settings.url);
    if (location === null) throw new ArtifactStoreError(`artifacts.url ${settings.url} is not s3://bucket/prefix`);
    this.bucket = location.bucket;
    this.prefix = location.prefix;
    this.client = new S3Client({
      ...definedFields({ endpoint: settings.endpoint }),
      region: settings.region ?? process.env.AWS_REGION ?? 'us-east-1',
      forcePathStyle: settings.path_style ?? settings.endpoint !== undefined,
      // S3-compatible servers differ in the checksums they take: send and check them only where S3 requires them
      // (the loop checks each object's sha256 itself).
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      // A store that hangs (accepts, then says nothing) fails a request rather than holding its step for ever.
      requestHandler: { connectionTimeout: 5_000, requestTimeout: 20_000 },
    });
  }

  uri(key: string): string {
    return objectUri(this.bucket, key);
  }

  /** The key of `relative` under the loop's prefix. */
  key(relative: string): string {
    return `${this.prefix}${relative}`;
  }

  /** The sha256 an object was stored with, or null when there is no such object. */
  async storedSha256(key: string): Promise<string | null> {
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return head.Metadata?.[SHA256_META] ?? '';
    } catch (error) {
      if (error instanceof S3ServiceException && error.$metadata.httpStatusCode === 404) return null;
      throw new ArtifactStoreError(`artifact store: cannot look up ${this.uri(key)}: ${describe(error)}`);
    }
  }

  /** Uploads a file unless the object is there with the same sha256 already (a retry, the same content again). */
  async putFile(key: string, file: string): Promise<StoredObject> {
    const [sha256, { size }] = await Promise.all([fileSha256(file), stat(file)]);
    if ((await this.storedSha256(key)) !== sha256) {
      await this.upload(key, createReadStream(file), sha256);
    }
    return { uri: this.uri(key), sha256, bytes: size };
  }

  /** Uploads a file under the key its content names (`keyOf(sha256)`), unless that object is there already. */
  async putFileByContent(
    file: string,
    keyOf: (sha256: string) => string,
  ): Promise<{ sha256: string; bytes: number; sent: boolean }> {
    const [sha256, { size }] = await Promise.all([fileSha256(file), stat(file)]);
    const key = keyOf(sha256);
    const sent = (await this.storedSha256(key)) !== sha256;
    if (sent) await this.upload(key, createReadStream(file), sha256);
    return { sha256, bytes: size, sent };
  }

  /** Uploads a small text (a manifest) as one object. */
  async putText(key: string, text: string): Promise<StoredObject> {
    return this.putBytes(key, Buffer.from(text, 'utf8'));
  }

  /** Uploads bytes read already (a ledger copy as one pass left it) as one object. */
  async putBytes(key: string, body: Buffer): Promise<StoredObject> {
    const sha256 = createHash('sha256').update(body).digest('hex');
    await this.upload(key, body, sha256);
    return { uri: this.uri(key), sha256, bytes: body.length };
  }

  private async upload(key: string, body: Readable | Buffer, sha256: string): Promise<void> {
    try {
      await new Upload({
        client: this.client,
        params: { Bucket: this.bucket, Key: key, Body: body, Metadata: { [SHA256_META]: sha256 } },
        // A part that fails is not left behind: the upload is aborted and no object appears.
        leavePartsOnError: false,
      }).done();
    } catch (error) {
      throw new ArtifactStoreError(`artifact store: upload of ${this.uri(key)} failed: ${describe(error)}`);
    }
  }

  /** An object's text, or null when there is no such object. */
  async getText(key: string): Promise<string | null> {
    try {
      const got = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      return got.Body === undefined ? '' : await got.Body.transformToString('utf8');
    } catch (error) {
      if (error instanceof S3ServiceException && error.$metadata.httpStatusCode === 404) return null;
      throw new ArtifactStoreError(`artifact store: cannot read ${this.uri(key)}: ${describe(error)}`);
    }
  }

  /**
   * Downloads an object to `file`, checked against the sha256 its reader expects: written aside and
   * renamed into place, so `file` is never a part of an object or one with other bytes.
   */
  async getFile(key: string, file: string, sha256: string): Promise<void> {
    await mkdir(dirname(file), { recursive: true });
    const partial = `${file}.part-${process.pid}`;
    const hash = createHash('sha256');
    try {
      const got = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      const body = got.Body;
      if (!(body instanceof Readable)) throw new Error('the store answered without a body');
      body.on('data', (chunk: Buffer) => hash.update(chunk));
      await pipeline(body, createWriteStream(partial));
    } catch (error) {
      await rm(partial, { force: true });
      throw new ArtifactStoreError(`artifact store: cannot fetch ${this.uri(key)}: ${describe(error)}`);
    }
    const got = hash.digest('hex');
    if (got !== sha256) {
      await rm(partial, { force: true });
      throw new DamagedObjectError(
        `artifact store: ${this.uri(key)} has sha256 ${got}, not the ${sha256} its manifest names: the object was changed or damaged in the store; nothing was written to ${file}`,
        this.uri(key),
      );
    }
    await rename(partial, file);
  }

  close(): void {
    this.client.destroy();
  }
}

/** Runs `work` with a client of the store, closed after it whatever happens. */
export async function usingStore<T>(settings: ArtifactSettings, work: (store: ObjectStore) => Promise<T>): Promise<T> {
  const store = new ObjectStore(settings);
  try {
    return await work(store);
  } finally {
    store.close();
  }
}
