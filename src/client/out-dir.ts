// An output folder named on the command line (`ledger --out DIR`): missing folders are created,
// and when that cannot be done the error names what stands in the way (a file where a folder
// should be, a dangling link, a folder without write permission), not mkdir's errno on DIR.
import { constants, type Stats } from 'node:fs';
import { access, lstat, mkdir, readlink, realpath, stat } from 'node:fs/promises';
import path from 'node:path';

/** An output folder that cannot be used, and why. */
class OutDirError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OutDirError';
  }
}

async function statOrNull(file: string, how: typeof stat | typeof lstat): Promise<Stats | null> {
  try {
    return await how(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw error;
  }
}

/** Why nothing can be written in `dir`; null when it can. */
async function unwritable(dir: string): Promise<string | null> {
  try {
    await access(dir, constants.W_OK | constants.X_OK);
    return null;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EROFS' ? 'read-only file system' : 'no permission';
  }
}

/**
 * Check that `dir` (given as `flag`) is, or can be made, a folder to write into; throws an
 * OutDirError naming the cause. Creates nothing: call `makeOutDir` when there is something to write.
 */
export async function checkOutDir(dir: string, flag = '--out'): Promise<void> {
  const target = path.resolve(dir);
  const cannot = (why: string) => new OutDirError(`${flag} ${dir}: cannot create this folder: ${why}`);
  const here = await statOrNull(target, stat);
  if (here) {
    if (!here.isDirectory())
      throw new OutDirError(`${flag} ${dir} is a file, not a folder (${flag} takes a folder to write into)`);
    const why = await unwritable(target);
    if (why === 'read-only file system')
      throw new OutDirError(`${flag} ${dir}: this folder is on a read-only file system`);
    if (why !== null) throw new OutDirError(`${flag} ${dir}: no permission to write in this folder`);
    return;
  }
  // The nearest part of the path that exists decides.
  let existing = target;
  for (;;) {
    const link = await statOrNull(existing, lstat);
    if (link?.isSymbolicLink() && !(await statOrNull(existing, stat))) {
      throw cannot(`${existing} is a link to ${await readlink(existing)}, which does not exist`);
    }
    const info = link && (await statOrNull(existing, stat));
    if (info) {
      if (!info.isDirectory()) throw cannot(`${existing} is a file, not a folder`);
      const why = await unwritable(existing);
      if (why === 'read-only file system') throw cannot(`${existing} is on a read-only file system`);
      if (why !== null) throw cannot(`no permission to create folders in ${existing}`);
      return;
    }
    const parent = path.dirname(existing);
    if (parent === existing) return;
    existing = parent;
  }
}

/** Create `dir` (and its missing parents) to write into; an error names the cause. */
export async function makeOutDir(dir: string, flag = '--out'): Promise<void> {
  await checkOutDir(dir, flag);
  try {
    await mkdir(dir, { recursive: true });
  } catch (error) {
    throw new OutDirError(`${flag} ${dir}: cannot create this folder: ${(error as Error).message}`);
  }
}

/** A path with its existing part's links resolved (the rest as given): two names of one folder compare equal. */
async function resolved(file: string): Promise<string> {
  const absolute = path.resolve(file);
  try {
    return await realpath(absolute);
  } catch {
    const parent = path.dirname(absolute);
    return parent === absolute ? absolute : path.join(await resolved(parent), path.basename(absolute));
  }
}

/** Refuse files an output flag would replace: those that exist, unless `force`. */
export async function checkOverwrite(files: readonly string[], flag: string, force: boolean): Promise<void> {
  if (force) return;
  const existing: string[] = [];
  for (const file of files) if (await statOrNull(file, lstat)) existing.push(file);
  if (existing.length === 0) return;
  throw new OutDirError(
    `${flag}: ${existing.join(' and ')} ${existing.length === 1 ? 'exists' : 'exist'} already; add --force to replace ` +
      `${existing.length === 1 ? 'it' : 'them'}, or choose another ${flag}. Nothing written.`,
  );
}

/**
 * Refuse an output that lies in the loop's own state dir: the orchestrator keeps the loop's
 * ledger copy there (ledger.jsonl, state.json), and an export written over it would be read back
 * as the copy (rows twice).
 */
export async function checkNotInStateDir(
  out: string,
  flag: string,
  loopId: string,
  stateDir: string | null,
): Promise<void> {
  if (stateDir === null) return;
  const [target, state] = await Promise.all([resolved(out), resolved(stateDir)]);
  if (target !== state && !target.startsWith(`${state}${path.sep}`)) return;
  throw new OutDirError(
    `${flag} ${out} is in loop ${loopId}'s own state dir ${stateDir}, where the orchestrator keeps the loop's ` +
      'ledger copy (ledger.jsonl, state.json): an export there would be read back as the copy. ' +
      `Choose a folder outside it. Nothing written.`,
  );
}
