import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { jsonlText, sha256Text, writeAtomic } from './files.js';
import { readScoreRows } from './scores-file.js';
import type { ScoreRow } from './scoring.js';

/**
 * `--score-cache-dir`: scores keyed by what fixes them (the model's bytes and the role's ids),
 * so scoring the same checkpoint on the same mails again (a retried or repeated evaluation)
 * costs one file read and no corpus load. No directory: always compute.
 */
export function cachedScores(dir: string | undefined, key: readonly string[], compute: () => ScoreRow[]): ScoreRow[] {
  if (dir === undefined) return compute();
  const path = join(dir, `${sha256Text(key.join('\n'))}.scores.jsonl`);
  if (existsSync(path)) return readScoreRows(path, 'cached scores');
  const rows = compute();
  writeAtomic(path, jsonlText(rows));
  return rows;
}
