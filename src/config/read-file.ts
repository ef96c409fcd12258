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

/** What is at a path: a file, a directory, something else, or nothing. */
export async function pathKind(path: string): Promise<'file' | 'directory' | 'other' | 'missing'> {
  try {
    const stats = await stat(path);
    return stats.isFile() ? 'file' : stats.isDirectory() ? 'directory' : 'other';
  } catch {
    return 'missing';
  }
}
