import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parse } from 'yaml';

const LINEAGE_KEYS = ['data_root', 'split', 'cache_inventory', 'embedding_database', 'embedding_layer_dir'] as const;
const HASHED = new Set(['split', 'cache_inventory']);

/**
 * What decides whether two teacher members can share one evaluator process (docs/behaviour.md,
 * teachers and ensembles): the same input files (identity, and content for split and cache
 * inventory). A config without data_root, split and cache_inventory is keyed by its whole text.
 */
export async function lineageKey(configText: string, workdir: string, hashes: Map<string, string>): Promise<string> {
  const settings = (parse(configText) ?? {}) as Record<string, unknown>;
  if (!['data_root', 'split', 'cache_inventory'].every((key) => key in settings)) {
    return JSON.stringify(settings, Object.keys(settings).sort());
  }
  const lineage: Record<string, unknown> = { embedding_layers: settings.embedding_layers ?? null };
  for (const key of LINEAGE_KEYS) {
    const value = settings[key];
    if (typeof value !== 'string' || value === '') {
      lineage[key] = null;
      continue;
    }
    const path = resolve(workdir, value);
    const info = await stat(path);
    const identity = [info.dev, info.ino, info.size, info.mtimeMs, info.ctimeMs];
    let content: string | null = null;
    if (HASHED.has(key)) {
      const id = `${path}:${identity.join(':')}`;
      content =
        hashes.get(id) ??
        createHash('sha256')
          .update(await readFile(path))
          .digest('hex');
      hashes.set(id, content);
    }
    lineage[key] = [path, identity, content];
  }
  return JSON.stringify(lineage);
}
