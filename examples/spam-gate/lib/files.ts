import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import process from 'node:process';
import { UsageError } from './args.js';

// File helpers: JSON and JSONL in, atomic writes out, sha256 of what was read or written.

export function readText(path: string, what: string): string {
  if (!existsSync(path)) throw new UsageError(`${what} not found: ${path}`);
  return readFileSync(path, 'utf8');
}

export function readJson(path: string, what: string): unknown {
  const text = readText(path, what);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new UsageError(`${what} is not valid JSON: ${path}`);
  }
}

export function readJsonl(path: string, what: string): unknown[] {
  const lines = readText(path, what).split('\n');
  const rows: unknown[] = [];
  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    try {
      rows.push(JSON.parse(line) as unknown);
    } catch {
      throw new UsageError(`${what} line ${index + 1} is not valid JSON: ${path}`);
    }
  });
  return rows;
}

export function writeText(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

/** Readers (the loop, a killed run's retry) never see half a file: temp file, then rename. */
export function writeAtomic(path: string, text: string): void {
  const tmp = `${path}.tmp-${process.pid}`;
  writeText(tmp, text);
  renameSync(tmp, path);
}

export function jsonText(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

export function jsonlText(rows: readonly unknown[]): string {
  return rows.map((row) => `${JSON.stringify(row)}\n`).join('');
}

export function sha256Text(text: string | Buffer): string {
  return createHash('sha256').update(text).digest('hex');
}

export function sha256File(path: string): string {
  if (!existsSync(path)) throw new UsageError(`file not found: ${path}`);
  return sha256Text(readFileSync(path));
}
