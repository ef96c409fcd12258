import type { z } from 'zod';
import { checkAgainst, type Problem } from '../config/problems.js';
import { ContractError } from './errors.js';
import { definedFields } from '../support/defined-fields.js';

/** Parses JSON text; a syntax error becomes a ContractError naming the file (and line, when known). */
function readJsonText(text: string, file: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new ContractError(file, 'syntax', [jsonSyntaxProblem(text, error)], { cause: error });
  }
}

/** Parses JSON text against a schema; throws a ContractError with the first problem in full. */
export function parseJsonWith<S extends z.ZodType>(schema: S, text: string, file: string): z.output<S> {
  const result = checkAgainst(schema, readJsonText(text, file), 'json');
  if (!result.success) {
    throw new ContractError(file, 'invalid', result.problems);
  }
  return result.data;
}

/** What JSON.parse said, placed at a line and column when its message gives a position. */
export function jsonSyntaxProblem(text: string, error: unknown, line?: number): Problem {
  if (text.trim() === '') {
    return { field: '', expected: 'valid JSON', found: 'an empty file', ...definedFields({ line }) };
  }
  const message = error instanceof Error ? error.message : String(error);
  // Python's json module writes NaN and Infinity, which JSON itself does not allow.
  const python = /\b(NaN|-?Infinity)\b/.test(text) ? ' (NaN or Infinity, as Python writes them, is not JSON)' : '';
  const found = `a syntax error: ${shorten(message)}${python}`;
  const position = /at position (\d+)/.exec(message)?.[1];
  if (position === undefined) {
    return { field: '', expected: 'valid JSON', found, ...definedFields({ line }) };
  }
  const before = text.slice(0, Number(position));
  const lineInText = before.split('\n').length;
  const column = Number(position) - before.lastIndexOf('\n');
  return line === undefined
    ? { field: '', expected: 'valid JSON', found, line: lineInText, column }
    : { field: '', expected: 'valid JSON', found, line, column };
}

function shorten(message: string): string {
  // V8 quotes the whole input in some messages; one line of it is enough.
  const quoted = /^(.*?), (?:\.\.\.)?".*" is not valid JSON$/s.exec(message);
  const text = quoted?.[1] ?? message;
  return text.replace(/ in JSON at position \d+.*$/s, '').split('\n')[0] ?? text;
}
