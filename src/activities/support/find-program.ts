import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { delimiter, resolve } from 'node:path';

/** Why a program cannot be started, or null when it can. */
export type ProgramProblem = { readonly kind: 'not_found' | 'not_executable'; readonly detail: string } | null;

/**
 * Looks the program up as execve would: a name with a slash is a path (relative to `cwd`),
 * a bare name is searched on the PATH of the environment the command will get.
 */
export async function programProblem(
  program: string,
  cwd: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<ProgramProblem> {
  if (program.includes('/')) {
    const path = resolve(cwd, program);
    const kind = await executableKind(path);
    if (kind === 'missing') {
      return { kind: 'not_found', detail: `no such file: ${path}` };
    }
    return kind === 'ok' ? null : { kind: 'not_executable', detail: `${path} ${kind}` };
  }
  const dirs = (env.PATH ?? '').split(delimiter);
  let unusable: string | null = null;
  for (const dir of dirs) {
    const path = resolve(cwd, dir, program);
    const kind = await executableKind(path);
    if (kind === 'ok') {
      return null;
    }
    if (kind !== 'missing' && unusable === null) {
      unusable = `${path} ${kind}`;
    }
  }
  return unusable === null
    ? { kind: 'not_found', detail: `no program named ${program} on the PATH (${shortPath(env.PATH)})` }
    : { kind: 'not_executable', detail: unusable };
}

function shortPath(path: string | undefined): string {
  if (path === undefined) return 'PATH is unset';
  return path.length <= 160 ? `PATH=${path}` : `PATH=${path.slice(0, 157)}...`;
}

async function executableKind(
  path: string,
): Promise<'ok' | 'missing' | 'is a directory' | 'is not executable (chmod +x?)'> {
  try {
    const stats = await stat(path);
    if (stats.isDirectory()) {
      return 'is a directory';
    }
  } catch {
    return 'missing';
  }
  try {
    await access(path, constants.X_OK);
    return 'ok';
  } catch {
    return 'is not executable (chmod +x?)';
  }
}
