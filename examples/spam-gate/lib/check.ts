import { UsageError } from './args.js';

// Shape checks for parsed JSON and YAML, which arrive as `unknown`.

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function asRecord(value: unknown, what: string): Record<string, unknown> {
  if (!isRecord(value)) throw new UsageError(`${what} must be an object`);
  return value;
}

export function needString(record: Record<string, unknown>, key: string, what: string): string {
  const value = record[key];
  if (typeof value !== 'string' || value === '') throw new UsageError(`${what}: ${key} must be a non-empty string`);
  return value;
}

export function optionalString(record: Record<string, unknown>, key: string, what: string): string | undefined {
  return record[key] === undefined || record[key] === null ? undefined : needString(record, key, what);
}

export function needNumber(record: Record<string, unknown>, key: string, what: string): number {
  const value = record[key];
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new UsageError(`${what}: ${key} must be a number`);
  return value;
}
