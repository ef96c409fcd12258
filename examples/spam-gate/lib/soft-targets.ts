import { existsSync } from 'node:fs';
import { UsageError } from './args.js';
import { asRecord, needNumber, needString } from './check.js';
import { readJsonl, sha256File } from './files.js';
import { sigmoid } from './model.js';

/** A teacher file: the mean gate margin per message id of the teacher's members. */
export interface Teacher {
  readonly path: string;
  readonly sha256: string;
  readonly margins: ReadonlyMap<string, number>;
}

export function readTeacher(path: string): Teacher {
  // A student without its teacher would silently train as an ordinary run: refuse instead.
  if (!existsSync(path)) throw new UsageError(`teacher file (gate_soft_targets) not found: ${path}`);
  const margins = new Map<string, number>();
  for (const row of readJsonl(path, 'teacher file (gate_soft_targets)')) {
    const record = asRecord(row, `teacher file ${path}`);
    margins.set(needString(record, 'id', path), needNumber(record, 'margin', path));
  }
  if (margins.size === 0) throw new UsageError(`teacher file is empty: ${path}`);
  return { path, sha256: sha256File(path), margins };
}

/** The label mixed with the teacher's belief; a mail the teacher did not score keeps its label. */
export function softTarget(teacher: Teacher | null, id: string, label: 0 | 1, weight: number): number {
  const teacherMargin = teacher?.margins.get(id);
  return teacherMargin === undefined ? label : (1 - weight) * label + weight * sigmoid(teacherMargin);
}
