import { readFile, stat } from 'node:fs/promises';
import type { FileProblemError, Problem, ProblemKind } from './problems.js';

/** The constructor every FileProblemError subclass shares. */
export type FileErrorClass = new (
  file: string,
  kind: ProblemKind,
  problems: readonly Problem[],
  options?: ErrorOptions,
) => FileProblemError;

/** Reads a UTF-8 file; a missing or unreadable one becomes `ErrorClass` naming the file. */
export async function readFileText(path: string, ErrorClass: FileErrorClass): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      throw new ErrorClass(path, 'missing', [{ field: '', expected: 'an existing file', found: 'no such file' }], {
        cause: error,
      });
    }
    if (code === 'EISDIR') {
      throw new ErrorClass(path, 'unreadable', [{ field: '', expected: 'a file', found: 'a directory' }], {
        cause: error,
      });
    }
    const found = error instanceof Error ? error.message : String(error);
    throw new ErrorClass(path, 'unreadable', [{ field: '', expected: 'a readable file', found }], { cause: error });
  }
}

/** What is at a path: a file, a directory, something else, nothing, or what stops a look at it. */
export type PathKind = 'file' | 'directory' | 'other' | 'missing' | 'link-loop' | 'denied' | 'under-a-file';

export async function pathKind(path: string): Promise<PathKind> {
  try {
    const stats = await stat(path);
    return stats.isFile() ? 'file' : stats.isDirectory() ? 'directory' : 'other';
  } catch (error) {
    switch ((error as NodeJS.ErrnoException).code) {
      case 'ELOOP':
        return 'link-loop';
      case 'EACCES':
      case 'EPERM':
        return 'denied';
      case 'ENOTDIR':
        return 'under-a-file';
      default:
        return 'missing';
    }
  }
}

/** "which does not exist", "which is not a file": what a config error says of a path of kind `kind`. */
export function pathKindWords(kind: PathKind, wanted: 'file' | 'directory'): string {
  switch (kind) {
    case 'missing':
      return 'which does not exist';
    case 'link-loop':
      return 'which is a loop of symbolic links (each points on to the next, never to a file)';
    case 'denied':
      return 'which this user may not look at (permission denied on a folder of its path)';
    case 'under-a-file':
      return 'which cannot exist: a part of its path is a file, not a folder';
    default:
      return `which is not a ${wanted}`;
  }
}
