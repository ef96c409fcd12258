import type { z } from 'zod';

/** One thing wrong with a file: where, what was expected, what was found. */
export interface Problem {
  /** Dotted path of the offending field (`lanes.1.device`); '' for the file as a whole. */
  readonly field: string;
  readonly expected: string;
  readonly found?: string;
  /** One-based line, when the file format has lines worth naming. */
  readonly line?: number;
  readonly column?: number;
}

/** A problem found by a schema, with the raw path it was found at. */
export interface PathProblem extends Problem {
  readonly path: readonly (string | number)[];
}

/** Why a file could not be used: absent, unreadable, not parseable, or parsed but wrong. */
export type ProblemKind = 'missing' | 'unreadable' | 'syntax' | 'invalid';

/** How a file's values are named to its author: YAML says "mapping", JSON says "object". */
export type Flavor = 'yaml' | 'json';

/** `<file>[:line[:column]]: [<field>: ]<expected> (got <found>)`. */
export function formatProblem(file: string, problem: Problem): string {
  let where = file;
  if (problem.line !== undefined) {
    where += `:${problem.line}`;
    if (problem.column !== undefined) {
      where += `:${problem.column}`;
    }
  }
  const field = problem.field === '' ? '' : `${problem.field}: `;
  const found = problem.found === undefined ? '' : ` (got ${problem.found})`;
  return `${where}: ${field}${problem.expected}${found}`;
}

/** The first problem in full, then how many more there are. */
export function formatProblems(file: string, problems: readonly Problem[]): string {
  const [first] = problems;
  if (first === undefined) {
    return `${file}: unusable file`;
  }
  const more = problems.length - 1;
  const tail = more === 0 ? '' : ` (and ${more} more problem${more === 1 ? '' : 's'})`;
  return `${formatProblem(file, first)}${tail}`;
}

/** A file that cannot be used as written; each concern subclasses it under its own name. */
export class FileProblemError extends Error {
  readonly file: string;
  readonly kind: ProblemKind;
  readonly problems: readonly Problem[];
  /** The first problem's field, expected and found, for callers that show one. */
  readonly field: string;
  readonly expected: string;
  readonly found: string | undefined;
  readonly line: number | undefined;
  readonly column: number | undefined;

  constructor(file: string, kind: ProblemKind, problems: readonly Problem[], options?: ErrorOptions) {
    super(formatProblems(file, problems), options);
    this.name = 'FileProblemError';
    const first = problems[0] ?? { field: '', expected: 'a usable file' };
    this.file = file;
    this.kind = kind;
    this.problems = problems.map(({ field, expected, found, line, column }) => ({
      field,
      expected,
      found,
      line,
      column,
    }));
    this.field = first.field;
    this.expected = first.expected;
    this.found = first.found;
    this.line = first.line;
    this.column = first.column;
  }

  /** Every problem on its own line, for a log or a terminal. */
  describeAll(): string {
    return this.problems.map((problem) => formatProblem(this.file, problem)).join('\n');
  }
}

/** The dotted form of a schema path. */
function fieldOf(path: readonly PropertyKey[]): string {
  return path.map(String).join('.');
}

/** A short, quoted description of a value as the file's author wrote it. */
export function describeValue(value: unknown, flavor: Flavor): string {
  if (value === undefined) {
    return 'nothing';
  }
  if (value === null) {
    return flavor === 'yaml' ? 'an empty value (null)' : 'null';
  }
  if (typeof value === 'string') {
    const quoted = JSON.stringify(value);
    return quoted.length > 72 ? `${quoted.slice(0, 68)}..."` : quoted;
  }
  if (typeof value === 'number' && !Number.isFinite(value) && !Number.isNaN(value)) {
    return `${value < 0 ? 'a negative ' : 'a '}number beyond what a number can hold (it reads as ${value})`;
  }
  if (typeof value === 'number' && Number.isInteger(value) && !Number.isSafeInteger(value)) {
    return `${value}, beyond the largest whole number held exactly (${Number.MAX_SAFE_INTEGER})`;
  }
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') {
    return String(value);
  }
  if (Array.isArray(value)) {
    return value.length === 0 ? 'an empty list' : `a list of ${value.length} item${value.length === 1 ? '' : 's'}`;
  }
  if (typeof value === 'object') {
    const keys = Object.keys(value);
    const noun = flavor === 'yaml' ? 'a mapping' : 'an object';
    if (keys.length === 0) {
      return flavor === 'yaml' ? 'an empty mapping' : 'an empty object';
    }
    const shown = keys.slice(0, 4).join(', ');
    return `${noun} with ${keys.length > 4 ? `${shown}, ...` : shown}`;
  }
  return typeof value;
}

type CheckResult<T> =
  { readonly success: true; readonly data: T } | { readonly success: false; readonly problems: PathProblem[] };

/**
 * Runs a schema and turns each zod issue into a problem that reads as "what was expected":
 * schema-level messages win, this file's phrases fill in the rest.
 */
export function checkAgainst<S extends z.ZodType>(schema: S, value: unknown, flavor: Flavor): CheckResult<z.output<S>> {
  const knownKeys = new Map<string, string[]>();
  const errorMap = (issue: z.core.$ZodRawIssue): string | undefined => {
    if (issue.code === 'unrecognized_keys') {
      knownKeys.set(fieldOf(issue.path ?? []), shapeKeys(issue.inst));
      return 'no such field';
    }
    return expectedPhrase(issue, flavor);
  };
  const result = schema.safeParse(value, { error: errorMap, reportInput: true });
  if (result.success) {
    return { success: true, data: result.data };
  }
  const problems: PathProblem[] = [];
  for (const issue of result.error.issues) {
    const path = issue.path.filter((part): part is string | number => typeof part !== 'symbol');
    if (issue.code === 'unrecognized_keys') {
      const known = knownKeys.get(fieldOf(path)) ?? [];
      const input: unknown = issue.input;
      for (const key of issue.keys) {
        const found = isRecord(input) ? input[key] : undefined;
        problems.push({
          path: [...path, key],
          field: fieldOf([...path, key]),
          expected: unknownFieldPhrase(key, known),
          found: describeValue(found, flavor),
        });
      }
      continue;
    }
    problems.push({ path, field: fieldOf(path), expected: issue.message, found: describeFound(issue, path, flavor) });
  }
  return { success: false, problems };
}

function describeFound(issue: z.core.$ZodIssue, path: readonly PropertyKey[], flavor: Flavor): string {
  const input: unknown = issue.input;
  if (input === undefined) {
    return path.length === 0 ? 'nothing' : 'nothing: the field is missing';
  }
  if (input === null && path.length === 0 && flavor === 'yaml') {
    return 'an empty document';
  }
  return describeValue(input, flavor);
}

function expectedPhrase(issue: z.core.$ZodRawIssue, flavor: Flavor): string | undefined {
  switch (issue.code) {
    case 'invalid_type':
      return typePhrase(issue.expected === 'number' && isIntegerSchema(issue.inst) ? 'int' : issue.expected, flavor);
    case 'too_small':
      return boundPhrase(issue.origin, issue.minimum, issue.inclusive === true, 'min', isIntegerSchema(issue.schema));
    case 'too_big':
      return boundPhrase(issue.origin, issue.maximum, issue.inclusive === true, 'max', isIntegerSchema(issue.schema));
    case 'invalid_value':
      return oneOf(issue.values.map((value) => JSON.stringify(value) ?? String(value)));
    case 'invalid_format':
      return issue.format === 'regex' && issue.pattern !== undefined
        ? `a string matching ${issue.pattern}`
        : `a valid ${issue.format}`;
    case 'not_multiple_of':
      return `a multiple of ${issue.divisor}`;
    case 'invalid_union':
      return 'a value of one of the allowed forms';
    default:
      return undefined;
  }
}

function typePhrase(expected: string, flavor: Flavor): string {
  switch (expected) {
    case 'string':
      return 'a string';
    case 'number':
      return 'a number';
    case 'int':
      return 'an integer';
    case 'boolean':
      return 'true or false';
    case 'array':
      return 'a list';
    case 'object':
    case 'record':
      return flavor === 'yaml' ? 'a mapping' : 'an object';
    case 'null':
      return 'null';
    default:
      return `a value of type ${expected}`;
  }
}

function boundPhrase(
  origin: string,
  bound: number | bigint,
  inclusive: boolean,
  side: 'min' | 'max',
  integer: boolean,
): string {
  if (origin === 'array' || origin === 'set') {
    if (side === 'min' && Number(bound) === 1) {
      return 'a non-empty list';
    }
    return side === 'min' ? `a list of at least ${bound} items` : `a list of at most ${bound} items`;
  }
  if (origin === 'string') {
    if (side === 'min' && Number(bound) === 1) {
      return 'a non-empty string';
    }
    return side === 'min' ? `a string of at least ${bound} characters` : `a string of at most ${bound} characters`;
  }
  const noun = integer || origin === 'int' ? 'an integer' : 'a number';
  const operator = side === 'min' ? (inclusive ? '>=' : '>') : inclusive ? '<=' : '<';
  return `${noun} ${operator} ${bound}`;
}

function oneOf(options: readonly string[]): string {
  if (options.length <= 1) {
    return options[0] ?? 'no value at all';
  }
  return `${options.slice(0, -1).join(', ')} or ${options[options.length - 1]}`;
}

function isIntegerSchema(schema: unknown): boolean {
  const def = (schema as { _zod?: { def?: { format?: unknown } } } | undefined)?._zod?.def;
  return def?.format === 'safeint' || def?.format === 'int32' || def?.format === 'uint32';
}

function shapeKeys(inst: unknown): string[] {
  const shape = (inst as { _zod?: { def?: { shape?: unknown } } } | undefined)?._zod?.def?.shape;
  return isRecord(shape) ? Object.keys(shape) : [];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function unknownFieldPhrase(key: string, known: readonly string[]): string {
  const guess = closest(key, known);
  if (guess !== undefined) {
    return `no such field; did you mean "${guess}"?`;
  }
  return known.length === 0 ? 'no such field' : `no such field; known fields: ${known.join(', ')}`;
}

/** The known name a typo most likely meant, if one is close enough. */
function closest(key: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const name of known) {
    const distance = editDistance(key.toLowerCase(), name.toLowerCase());
    if (distance < bestDistance) {
      best = name;
      bestDistance = distance;
    }
  }
  const allowed = Math.max(1, Math.floor(key.length / 3));
  return bestDistance <= allowed ? best : undefined;
}

/** Edits (insert, delete, substitute, swap two neighbours) that turn `a` into `b`. */
function editDistance(a: string, b: string): number {
  let beforePrevious: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      let best = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, (beforePrevious[j - 2] ?? 0) + 1);
      }
      current.push(best);
    }
    beforePrevious = previous;
    previous = current;
  }
  return previous[b.length] ?? 0;
}
