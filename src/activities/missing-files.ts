import { exists } from './support/move-aside.js';

/** Which of these files do not exist (yet): student candidates wait for their teacher file. */
export async function missingFiles(input: { readonly files: readonly string[] }): Promise<string[]> {
  const missing: string[] = [];
  for (const file of input.files) if (!(await exists(file))) missing.push(file);
  return missing;
}
