import { join } from 'node:path';
import { UsageError } from './args.js';
import { asRecord, isRecord, needNumber } from './check.js';
import { parseCheckpoint } from './checkpoint.js';
import { readJson } from './files.js';
import { margin, type GateModel } from './model.js';
import { vectorOf } from './vectors.js';

export const PACKAGE_FORMAT = 'spam-gate-package/1';
export const MODEL_FILE = 'model.json';

/** A packaged champion: its members' weights and the reject band it was tested with. */
export interface PackagedModel {
  readonly models: readonly GateModel[];
  readonly band: { readonly low: number; readonly high: number } | null;
}

export function readPackage(dir: string): PackagedModel {
  const path = join(dir, MODEL_FILE);
  const record = asRecord(readJson(path, 'packaged model'), `packaged model ${path}`);
  if (record.format !== PACKAGE_FORMAT) throw new UsageError(`${path} is not a ${PACKAGE_FORMAT} file`);
  if (!Array.isArray(record.members) || record.members.length === 0) throw new UsageError(`${path} lists no members`);
  const models = record.members.map((member, index) => {
    const what = `${path} member ${index}`;
    return parseCheckpoint(asRecord(member, what).model, what);
  });
  const band = isRecord(record.reject_band)
    ? { low: needNumber(record.reject_band, 'low', path), high: needNumber(record.reject_band, 'high', path) }
    : null;
  return { models, band };
}

export type Decision = 'pass' | 'fail' | 'reject';

/** The gate on one raw mail: the members' mean margin, rejected inside the band. */
export function decideMail(packaged: PackagedModel, raw: string): { margin: number; decision: Decision } {
  const sum = packaged.models.reduce((total, model) => total + margin(model, vectorOf(raw, model.features)), 0);
  const value = sum / packaged.models.length;
  const { band } = packaged;
  const decision: Decision =
    band !== null && value >= band.low && value <= band.high ? 'reject' : value > 0 ? 'pass' : 'fail';
  return { margin: Math.round(value * 1e6) / 1e6, decision };
}
