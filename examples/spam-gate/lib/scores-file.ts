import { UsageError } from './args.js';
import { asRecord, needNumber, needString } from './check.js';
import { readJsonl } from './files.js';
import type { ScoreRow } from './scoring.js';

/** A scores JSONL file ({id, target, margin} per line): band scores, cached or teacher inputs. */
export function readScoreRows(path: string, what: string): ScoreRow[] {
  return readJsonl(path, what).map((row, index) => {
    const record = asRecord(row, `${what} ${path} line ${index + 1}`);
    const target = needNumber(record, 'target', path);
    if (target !== 0 && target !== 1) throw new UsageError(`${what} ${path} line ${index + 1}: target must be 0 or 1`);
    return { id: needString(record, 'id', path), target, margin: needNumber(record, 'margin', path) };
  });
}
