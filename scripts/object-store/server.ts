// A real S3-compatible server for a test file or a bench section: SeaweedFS (`weed server -s3`,
// built by provision.ts) on localhost ports of its own, its data in a temp folder, one identity
// with the access key the tests hand the loop through the AWS variables.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { freePort } from '../../src/devserver/dev-server.js';

// The SDK's Node 20 notice (see src/artifacts/object-store.ts) is noise in test output too.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const ACCESS_KEY = 'champion-loop-test';
const SECRET_KEY = 'champion-loop-test-secret';

export interface ObjectStoreServer {
  /** The S3 endpoint, e.g. http://127.0.0.1:41234. */
  readonly endpoint: string;
  /** What a process needs in its environment to reach the store (the AWS SDK reads these). */
  readonly env: Readonly<Record<string, string>>;
  /** A bucket made on this server. */
  bucket(name: string): Promise<void>;
  /** A raw S3 client with the test identity (for checks behind the loop's back). */
  client(): S3Client;
  /** Kills the server (SIGKILL: a store that goes away without a word). */
  kill(): Promise<void>;
  /** Starts it again on the same ports and data. */
  restart(): Promise<void>;
  /** Stops it answering without closing a connection (SIGSTOP: a store that hangs), until resume(). */
  pause(): void;
  resume(): void;
  dispose(): Promise<void>;
}

async function answers(endpoint: string): Promise<boolean> {
  try {
    // Anonymous: weed answers 403 once its S3 gateway is up.
    const response = await fetch(endpoint, { signal: AbortSignal.timeout(2_000) });
    return response.status > 0;
  } catch {
    return false;
  }
}

export async function startObjectStore(options: { weed: string; readyMs?: number }): Promise<ObjectStoreServer> {
  const weed = options.weed;
  const dir = await mkdtemp(path.join(tmpdir(), 'champion-loop-s3-'));
  await mkdir(path.join(dir, 'data'));
  const config = path.join(dir, 's3.json');
  await writeFile(
    config,
    JSON.stringify({
      identities: [
        {
          name: 'loop',
          credentials: [{ accessKey: ACCESS_KEY, secretKey: SECRET_KEY }],
          actions: ['Admin', 'Read', 'Write', 'List', 'Tagging'],
        },
      ],
    }),
  );
  // Every port named: weed's defaults (9333, 8888, port + 10000 for gRPC, 8181, 9101) would clash between test files.
  const ports: number[] = [];
  while (ports.length < 8) {
    const port = await freePort();
    if (!ports.includes(port)) ports.push(port);
  }
  const [master, masterGrpc, volume, volumeGrpc, filer, filerGrpc, s3, s3Grpc] = ports;
  const endpoint = `http://127.0.0.1:${s3}`;
  let child: ChildProcess | null = null;
  let output = '';
  const start = async (): Promise<void> => {
    child = spawn(
      weed,
      [
        'server',
        `-dir=${path.join(dir, 'data')}`,
        '-ip=127.0.0.1',
        '-ip.bind=127.0.0.1',
        `-master.port=${master}`,
        `-master.port.grpc=${masterGrpc}`,
        `-volume.port=${volume}`,
        `-volume.port.grpc=${volumeGrpc}`,
        `-filer.port=${filer}`,
        `-filer.port.grpc=${filerGrpc}`,
        '-s3',
        `-s3.port=${s3}`,
        `-s3.port.grpc=${s3Grpc}`,
        '-s3.port.iceberg=0',
        '-s3.port.lance=0',
        `-s3.config=${config}`,
        '-volume.max=0',
        '-master.volumeSizeLimitMB=64',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child.stdout?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000)));
    child.stderr?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000)));
    const deadline = Date.now() + (options.readyMs ?? 90_000);
    while (!(await answers(endpoint))) {
      if (child.exitCode !== null) throw new Error(`weed server exited (${child.exitCode}):\n${output}`);
      if (Date.now() > deadline) throw new Error(`weed's S3 gateway did not answer at ${endpoint}:\n${output}`);
      await sleep(250);
    }
  };
  const stop = async (): Promise<void> => {
    const running = child;
    child = null;
    if (running === null || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGKILL');
    await exited;
  };
  await start();
  const env = {
    AWS_ACCESS_KEY_ID: ACCESS_KEY,
    AWS_SECRET_ACCESS_KEY: SECRET_KEY,
    AWS_REGION: 'us-east-1',
  };
  const client = () =>
    new S3Client({
      endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: ACCESS_KEY, secretAccessKey: SECRET_KEY },
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  return {
    endpoint,
    env,
    async bucket(name) {
      const s3client = client();
      // The gateway answers before the filer under it takes writes: try for a while.
      const deadline = Date.now() + 60_000;
      for (;;) {
        try {
          await s3client.send(new CreateBucketCommand({ Bucket: name }));
          break;
        } catch (error) {
          if (error instanceof Error && error.name === 'BucketAlreadyOwnedByYou') break;
          if (Date.now() > deadline) throw error;
          await sleep(500);
        }
      }
      s3client.destroy();
    },
    client,
    kill: stop,
    restart: start,
    pause: () => void child?.kill('SIGSTOP'),
    resume: () => void child?.kill('SIGCONT'),
    async dispose() {
      await stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
