// @ts-check
/** Shape checks for parsed JSON and YAML (which arrive as `unknown`). */
import { UsageError } from './args.mjs';

/**
 * @param {unknown} value
 * @returns {value is Record<string, unknown>}
 */
export function isRecord(value) {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * @param {unknown} value
 * @param {string} what
 * @returns {Record<string, unknown>}
 */
export function asRecord(value, what) {
  if (!isRecord(value)) throw new UsageError(`${what} must be an object`);
  return value;
}

/**
 * @param {Record<string, unknown>} record
 * @param {string} key
 * @param {string} what
 * @returns {string}
 */
export function needString(record, key, what) {
  const value = record[key];
  if (typeof value !== 'string' || value === '') throw new UsageError(`${what}: ${key} must be a string`);
  return value;
}

/**
 * @param {Record<string, unknown>} record
 * @param {string} key
 * @param {string} what
 * @returns {string | undefined}
 */
export function optionalString(record, key, what) {
  return record[key] === undefined || record[key] === null ? undefined : needString(record, key, what);
}

/**
 * @param {Record<string, unknown>} record
 * @param {string} key
 * @param {string} what
 * @returns {number}
 */
export function needNumber(record, key, what) {
  const value = record[key];
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new UsageError(`${what}: ${key} must be a number`);
  return value;
}
