// `champion-loop relocate` (issue 24): a stopped loop's state dir and runs root moved to where an
// edited loop.yaml says, and the move recorded in the new state dir, so that `start` resumes the
// loop there with every path its carry holds moved too. Rows already in the ledger keep the paths
// they had (history cannot be rewritten); `relocations.jsonl` says where those went.
import { appendFile, mkdir, readFile, rename } from 'node:fs/promises';
import { exists } from '../activities/support/move-aside.js';
import path from 'node:path';
import type { LoopConfig } from '../config/loop-config.js';
import { ownerOf } from '../config/folder-owners.js';

/** One folder of a loop moved: which loop.yaml field, from where, to where (absolute paths). */
export interface FolderMove {
  readonly field: 'state_dir' | 'runs_root';
  readonly from: string;
  readonly to: string;
}

const RELOCATIONS_FILE = 'relocations.jsonl';

export function relocationsPath(stateDir: string): string {
  return path.join(stateDir, RELOCATIONS_FILE);
}

/** The folders a loop.yaml moves, against the one the loop's latest run was started with. */
export function folderMoves(previous: LoopConfig, edited: LoopConfig): FolderMove[] {
  return (['state_dir', 'runs_root'] as const)
    .filter((field) => previous[field] !== edited[field])
    .map((field) => ({ field, from: previous[field], to: edited[field] }));
}

/** A path under a moved folder, moved with it; any other string as it is. */
function movedPath(text: string, moves: readonly FolderMove[]): string {
  for (const { from, to } of moves) {
    if (text === from) return to;
    if (text.startsWith(`${from}${path.sep}`)) return `${to}${text.slice(from.length)}`;
  }
  return text;
}

/** A JSON value (a carry) with every path under a moved folder moved with it. */
export function relocated<T>(value: T, moves: readonly FolderMove[]): T {
  const walk = (item: unknown): unknown => {
    if (typeof item === 'string') return movedPath(item, moves);
    if (Array.isArray(item)) return item.map(walk);
    if (typeof item === 'object' && item !== null)
      return Object.fromEntries(Object.entries(item).map(([key, inner]) => [key, walk(inner)]));
    return item;
  };
  return walk(value) as T;
}

/**
 * Move each folder (a rename; one already moved by hand, holding this loop's owner file, is taken
 * as it is) and record the moves in the new state dir. Says what it did, a line a move.
 */
export async function moveFolders(loopId: string, moves: readonly FolderMove[], stateDir: string): Promise<string[]> {
  const said: string[] = [];
  for (const move of moves) {
    const [there, here] = [await exists(move.from), await exists(move.to)];
    if (there && here)
      throw new Error(
        `${move.field}: both ${move.from} and ${move.to} exist; move the loop's folder to ${move.to} only when nothing is there. Nothing moved.`,
      );
    if (!there && !here)
      throw new Error(
        `${move.field}: neither ${move.from} (the loop's) nor ${move.to} exists: nothing to move. Nothing moved.`,
      );
    if (here) {
      const owner = await ownerOf(move.to);
      if (owner !== null && owner.loop_id !== loopId)
        throw new Error(
          `${move.field}: ${move.to} belongs to loop '${owner.loop_id}' (its .loop-owner). Nothing moved.`,
        );
      said.push(`${move.field}: ${move.from} is already at ${move.to}`);
      continue;
    }
    await mkdir(path.dirname(move.to), { recursive: true });
    try {
      await rename(move.from, move.to);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
      throw new Error(
        `${move.field}: ${move.to} is on another file system than ${move.from}: copy it there yourself ` +
          `(cp -a or rsync -a), delete ${move.from}, then run relocate again. Nothing more moved.`,
        { cause: error },
      );
    }
    said.push(`${move.field}: moved ${move.from} to ${move.to}`);
  }
  await appendFile(
    relocationsPath(stateDir),
    `${JSON.stringify({ time: new Date().toISOString(), loop_id: loopId, moves })}\n`,
  );
  return said;
}

/** Whether the new state dir records exactly these moves as its latest relocation. */
export async function recordedMoves(stateDir: string, moves: readonly FolderMove[]): Promise<boolean> {
  let text: string;
  try {
    text = await readFile(relocationsPath(stateDir), 'utf8');
  } catch {
    return false;
  }
  const last = text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .at(-1);
  if (last === undefined) return false;
  try {
    const record = JSON.parse(last) as { moves?: FolderMove[] };
    return JSON.stringify(record.moves) === JSON.stringify(moves);
  } catch {
    return false;
  }
}
