// An ensemble's manifest on disk (docs/behaviour.md, teachers and ensembles): one JSON file of
// its members' (config, checkpoint) pairs, a pure function of the members, so any host can write
// the same bytes from the ensemble's run row (its `members`) and check them by the row's sha256.
import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { exists } from './move-aside.js';

export interface ManifestMember {
  readonly config: string;
  readonly checkpoint: string;
}

/** The manifest's text: `{"members": [{config, checkpoint}, ...]}`, pretty-printed. */
export function manifestText(members: readonly ManifestMember[]): string {
  const pairs = members.map((member) => ({ config: member.config, checkpoint: member.checkpoint }));
  return `${JSON.stringify({ members: pairs }, null, 2)}\n`;
}

/** Writes the manifest unless a file is at `path` already (kept, never rewritten); its sha256. */
export async function writeManifestFile(path: string, members: readonly ManifestMember[]): Promise<string> {
  if (!(await exists(path))) {
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, manifestText(members), { flag: 'wx' }).catch((error: NodeJS.ErrnoException) => {
      // Another attempt wrote it first: the same bytes.
      if (error.code !== 'EEXIST') throw error;
    });
  }
  return createHash('sha256')
    .update(await readFile(path))
    .digest('hex');
}

/** A run row's `members` as manifest members, or null when one lacks a config or checkpoint path. */
export function manifestMembers(members: readonly unknown[] | undefined): ManifestMember[] | null {
  if (members === undefined || members.length === 0) return null;
  const pairs: ManifestMember[] = [];
  for (const member of members) {
    const { config, checkpoint } = (member ?? {}) as { config?: unknown; checkpoint?: unknown };
    if (typeof config !== 'string' || typeof checkpoint !== 'string') return null;
    pairs.push({ config, checkpoint });
  }
  return pairs;
}
