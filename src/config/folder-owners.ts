// A loop owns its folders (issue 18, "two loops, one folder"): its state dir, its runs root and,
// when it builds a teacher, its teacher folder each hold a small owner file naming the loop.
// `start` claims them (src/client/folder-owner.ts refuses another loop's); the ledger keeper
// claims them again when they vanish under a running loop.
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { LoopConfig } from './loop-config.js';

/** The owner file in each folder a loop holds. */
export const OWNER_FILE = '.loop-owner';

/** What an owner file says. */
export interface FolderOwner {
  readonly loop_id: string;
  readonly namespace: string;
  readonly since: string;
}

/** One folder a loop holds, and the loop.yaml field that names it. */
interface OwnedFolder {
  readonly field: 'state_dir' | 'runs_root' | 'teacher_path';
  readonly what: string;
  readonly dir: string;
}

/**
 * The folder every expansion of a teacher path lies in: the folder of the path up to its first
 * `{` (`teachers/gen-{generation}/insample.jsonl` -> `teachers`), or of the path itself.
 */
function teacherFolder(teacherPath: string): string {
  const brace = teacherPath.indexOf('{');
  return path.dirname(brace < 0 ? teacherPath : teacherPath.slice(0, brace));
}

export function ownedFolders(
  config: Pick<LoopConfig, 'state_dir' | 'runs_root' | 'teacher_path' | 'teacher_after_round'>,
): OwnedFolder[] {
  return [
    { field: 'state_dir', what: 'state dir', dir: config.state_dir },
    { field: 'runs_root', what: 'runs root', dir: config.runs_root },
    // A loop that never builds a teacher writes nothing there.
    ...(config.teacher_after_round > 0
      ? [{ field: 'teacher_path' as const, what: 'teacher folder', dir: teacherFolder(config.teacher_path) }]
      : []),
  ];
}

export async function ownerOf(dir: string): Promise<FolderOwner | null> {
  let text: string;
  try {
    text = await readFile(path.join(dir, OWNER_FILE), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR')
      return null;
    throw error;
  }
  try {
    const owner = JSON.parse(text) as Partial<FolderOwner>;
    if (typeof owner.loop_id === 'string' && typeof owner.namespace === 'string')
      return { loop_id: owner.loop_id, namespace: owner.namespace, since: String(owner.since ?? '?') };
  } catch {
    // An owner file that is not ours to read holds nothing.
  }
  return null;
}

/** Writes the owner file into each folder of `config` that has none (creating the folder). */
export async function claimFolders(loopId: string, namespace: string, config: LoopConfig): Promise<void> {
  for (const folder of ownedFolders(config)) {
    if ((await ownerOf(folder.dir)) !== null) continue;
    await mkdir(folder.dir, { recursive: true });
    const file = path.join(folder.dir, OWNER_FILE);
    const temporary = `${file}.${process.pid}.tmp`;
    const owner: FolderOwner = { loop_id: loopId, namespace, since: new Date().toISOString() };
    await writeFile(temporary, `${JSON.stringify(owner)}\n`);
    await rename(temporary, file);
  }
}
