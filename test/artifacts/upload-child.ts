// Uploads one file to the artifact store and exits: the object store test kills it halfway.
// Arguments: the loop.yaml artifacts settings as JSON, the key, the file.
import process from 'node:process';
import { ObjectStore } from '../../src/artifacts/object-store.js';
import { artifactsSchema } from '../../src/artifacts/store-settings.js';

const [settings, key, file] = process.argv.slice(2);
const store = new ObjectStore(artifactsSchema.parse(JSON.parse(settings ?? '{}')));
await store.putFile(key ?? '', file ?? '');
store.close();
