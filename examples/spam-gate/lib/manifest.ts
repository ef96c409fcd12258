import { UsageError } from './args.js';
import { asRecord, needString } from './check.js';
import { readJson } from './files.js';

/** One ensemble member: the job config it was trained with and its checkpoint. */
export interface Member {
  readonly config: string;
  readonly checkpoint: string;
}

export function readManifest(path: string): Member[] {
  const members = asRecord(readJson(path, 'manifest'), `manifest ${path}`).members;
  if (!Array.isArray(members) || members.length === 0) throw new UsageError(`manifest ${path} lists no members`);
  return members.map((member, index) => {
    const what = `manifest ${path} member ${index}`;
    const record = asRecord(member, what);
    return { config: needString(record, 'config', what), checkpoint: needString(record, 'checkpoint', what) };
  });
}
