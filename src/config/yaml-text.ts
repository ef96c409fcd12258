import { isMap, isScalar, isSeq, LineCounter, parseDocument } from 'yaml';
import type { z } from 'zod';
import { ConfigError } from './errors.js';
import { checkAgainst, type PathProblem, type Problem } from './problems.js';

/** A position in a YAML file, one-based. */
interface YamlPosition {
  readonly line: number;
  readonly column: number;
}

/** Finds where the field at a schema path was written; undefined when nowhere. */
export type Locate = (path: readonly (string | number)[]) => YamlPosition | undefined;

/** A parsed YAML document plus a way back from a field path to where it was written. */
export interface YamlText {
  readonly value: unknown;
  readonly locate: Locate;
}

/** Parses YAML text; a syntax error becomes a ConfigError naming file, line and column. */
export function readYamlText(text: string, file: string): YamlText {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, prettyErrors: false });
  if (document.errors.length > 0) {
    const problems: Problem[] = document.errors.map((error) => {
      const { line, col } = lineCounter.linePos(error.pos[0]);
      return { field: '', expected: 'valid YAML', found: `a syntax error: ${error.message}`, line, column: col };
    });
    throw new ConfigError(file, 'syntax', problems);
  }
  let value: unknown;
  try {
    value = document.toJS();
  } catch (error) {
    // Alias expansion can still fail here, e.g. on a "billion laughs" file.
    const found = `a document that cannot be expanded: ${error instanceof Error ? error.message : String(error)}`;
    throw new ConfigError(file, 'syntax', [{ field: '', expected: 'valid YAML', found }], { cause: error });
  }
  const locate: Locate = (path) => {
    let node: unknown = document.contents;
    // A field that is not there at all is placed at its nearest written parent, never at the top.
    let range: readonly number[] | undefined = path.length === 0 ? rangeOf(node) : undefined;
    for (const part of path) {
      if (isMap(node)) {
        const pair = node.items.find((item) => isScalar(item.key) && String(item.key.value) === String(part));
        if (pair === undefined) {
          break;
        }
        range = rangeOf(pair.key) ?? range;
        node = pair.value;
      } else if (isSeq(node)) {
        const item: unknown = node.items[Number(part)];
        if (item === undefined) {
          break;
        }
        range = rangeOf(item) ?? range;
        node = item;
      } else {
        break;
      }
    }
    const start = range?.[0];
    if (start === undefined) {
      return undefined;
    }
    const { line, col } = lineCounter.linePos(start);
    return { line, column: col };
  };
  return { value, locate };
}

/** Parses YAML text against a schema; every problem is placed at the line it was written on. */
export function parseYamlWith<S extends z.ZodType>(
  schema: S,
  text: string,
  file: string,
): { readonly data: z.output<S>; readonly locate: Locate } {
  const yaml = readYamlText(text, file);
  const result = checkAgainst(schema, yaml.value, 'yaml');
  if (!result.success) {
    throw new ConfigError(file, 'invalid', placeProblems(result.problems, yaml.locate));
  }
  return { data: result.data, locate: yaml.locate };
}

/** Adds line and column to each problem and puts them in file order (unplaced ones last). */
function placeProblems(problems: readonly PathProblem[], locate: Locate): Problem[] {
  const placed = problems.map((problem) => {
    const position = locate(problem.path);
    return position === undefined ? problem : { ...problem, line: position.line, column: position.column };
  });
  const order = (problem: Problem): number => problem.line ?? Number.POSITIVE_INFINITY;
  return placed
    .map((problem, index) => ({ problem, index }))
    .sort((a, b) => order(a.problem) - order(b.problem) || a.index - b.index)
    .map(({ problem }) => problem);
}

function rangeOf(node: unknown): readonly number[] | undefined {
  const range = (node as { range?: unknown } | null | undefined)?.range;
  return Array.isArray(range) ? (range as number[]) : undefined;
}
