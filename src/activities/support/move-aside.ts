import { lstat, rename } from 'node:fs/promises';

// Moved-aside files and directories become `<path>.aside-<N>`, N the first free number from 1:
// nothing is ever deleted or overwritten, and `ls <path>*` shows every earlier attempt in order.

/** Renames `path` to its first free `<path>.aside-<N>` and returns that name; null when nothing is there. */
export async function moveAside(path: string): Promise<string | null> {
  if (!(await exists(path))) {
    return null;
  }
  for (let n = 1; ; n += 1) {
    const target = `${path}.aside-${n}`;
    if (!(await exists(target))) {
      await rename(path, target);
      return target;
    }
  }
}

/** Whether anything (file, directory, dangling link) is at `path`. */
export async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      return false;
    }
    throw error;
  }
}
