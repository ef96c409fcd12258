import { readFile, stat } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';

/**
 * The package's path: the last line of the package command's output (its log) that names an
 * existing file or folder, relative paths taken from the workdir (the fixture stack and the
 * seed's script print it last). What the command writes is its own business (docs/contract.md).
 */
export async function packagePathFromLog(log: string, workdir: string): Promise<string | null> {
  let text: string;
  try {
    text = await readFile(log, 'utf8');
  } catch {
    return null;
  }
  const lines = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.includes('\u0000'));
  for (const line of lines.reverse()) {
    const candidate = isAbsolute(line) ? line : resolve(workdir, line);
    if (
      await stat(candidate).then(
        () => true,
        () => false,
      )
    )
      return candidate;
  }
  return null;
}
