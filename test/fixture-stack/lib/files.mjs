// @ts-check
/** File helpers: JSON and JSONL reading, atomic writes, sha256. */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import process from 'node:process';
import { UsageError } from './args.mjs';

/**
 * @param {string} path
 * @param {string} what
 * @returns {string}
 */
export function readText(path, what) {
  if (!existsSync(path)) throw new UsageError(`${what} not found: ${path}`);
  return readFileSync(path, 'utf8');
}

/**
 * @param {string} path
 * @param {string} what
 * @returns {unknown}
 */
export function readJson(path, what) {
  const text = readText(path, what);
  try {
    /** @type {unknown} */
    const value = JSON.parse(text);
    return value;
  } catch {
    throw new UsageError(`${what} is not valid JSON: ${path}`);
  }
}

/**
 * @param {string} path
 * @param {string} what
 * @returns {unknown[]}
 */
export function readJsonl(path, what) {
  const lines = readText(path, what)
    .split('\n')
    .filter((line) => line.trim() !== '');
  return lines.map((line, index) => {
    try {
      /** @type {unknown} */
      const value = JSON.parse(line);
      return value;
    } catch {
      throw new UsageError(`${what} line ${index + 1} is not valid JSON: ${path}`);
    }
  });
}

/**
 * Write a file, creating its folder.
 * @param {string} path
 * @param {string} text
 */
export function writeText(path, text) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

/**
 * Write via a temp file and rename, so readers never see half a file.
 * @param {string} path
 * @param {string} text
 */
export function writeAtomic(path, text) {
  const tmp = `${path}.tmp-${process.pid}`;
  writeText(tmp, text);
  renameSync(tmp, path);
}

/** @param {unknown} value */
export function jsonText(value) {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** @param {readonly unknown[]} rows */
export function jsonlText(rows) {
  return rows.map((row) => `${JSON.stringify(row)}\n`).join('');
}

/**
 * @param {string} path
 * @returns {string}
 */
export function sha256File(path) {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}
