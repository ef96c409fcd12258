// Uploads one file to the artifact store and exits: the object store test kills it halfway.
// Arguments: the loop.yaml artifacts settings as JSON, the key, the file. Once the store has taken
// the upload's first part it prints `part landed` and holds that part's request unanswered (the
// upload never completes), so the test kills it mid-upload however fast or slow the box is.
import process from 'node:process';
import { S3Client, UploadPartCommand } from '@aws-sdk/client-s3';
import { ObjectStore } from '../../src/artifacts/object-store.js';
import { artifactsSchema } from '../../src/artifacts/store-settings.js';

type Send = (this: S3Client, command: unknown, ...rest: unknown[]) => Promise<unknown>;
const send = Reflect.get(S3Client.prototype, 'send') as Send;
let landed = false;
(S3Client.prototype as unknown as { send: Send }).send = async function (command, ...rest) {
  const result = await send.call(this, command, ...rest);
  if (command instanceof UploadPartCommand) {
    if (!landed) process.stdout.write('part landed\n');
    landed = true;
    await new Promise(() => undefined);
  }
  return result;
};

const [settings, key, file] = process.argv.slice(2);
const store = new ObjectStore(artifactsSchema.parse(JSON.parse(settings ?? '{}')));
await store.putFile(key ?? '', file ?? '');
store.close();
