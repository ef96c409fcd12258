// `start` refuses a folder another loop holds (issue 18, "two loops, one folder"), before anything
// is written or moved; what an owner file is: src/config/folder-owners.ts.
import path from 'node:path';
import { OWNER_FILE, ownedFolders, ownerOf } from '../config/folder-owners.js';
import type { LoopConfig } from '../config/loop-config.js';
import { checkOutDir } from './out-dir.js';

/** Refuses a folder of `config` that another loop holds, naming that loop and what to do. */
export async function checkFolderOwners(
  loopId: string,
  namespace: string,
  config: LoopConfig,
  configFile: string,
): Promise<void> {
  for (const folder of ownedFolders(config)) {
    // A folder that cannot be made (a file in its path, a read-only file system) is said now, with its key.
    await checkOutDir(folder.dir, `${folder.field} (in ${configFile})`);
    const owner = await ownerOf(folder.dir);
    if (owner === null || (owner.loop_id === loopId && owner.namespace === namespace)) continue;
    const file = path.join(folder.dir, OWNER_FILE);
    throw new Error(
      `the ${folder.what} ${folder.dir} (${folder.field} in ${configFile}) belongs to loop '${owner.loop_id}' (namespace ${owner.namespace}, since ${owner.since}; ${file}): ` +
        `two loops in one folder break each other's runs${folder.field === 'teacher_path' ? ' and teachers' : ''}. Give loop '${loopId}' its own ${folder.field} in ${configFile}; ` +
        `if loop '${owner.loop_id}' is gone for good and its folder is to be taken over, delete ${file}. Nothing started.`,
    );
  }
}
