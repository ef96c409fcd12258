// The structure figures issue 44 set goals for, measured over src/ and printed by `npm run lint`:
// files over 400 lines, functions over 80 lines, conditional spreads (`=== undefined ? {} :`) and
// the places a step's GPU need is written by hand (`gpuNeed:`). It reports; it never fails.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const ROOT = path.join(import.meta.dirname, '..', 'src');
const FILE_LINES = 400;
const FUNCTION_LINES = 80;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** Every function-like node of a file longer than FUNCTION_LINES lines: `file:line name (N lines)`. */
function longFunctions(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = end - start + 1;
      if (lines > FUNCTION_LINES) {
        const name = node.name?.getText(source) ?? (ts.isArrowFunction(node) ? '(arrow)' : '(anonymous)');
        found.push(`${path.relative(ROOT, file)}:${start + 1} ${name} (${lines} lines)`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const files = sourceFiles(ROOT).sort();
const texts = files.map((file) => ({ file, text: readFileSync(file, 'utf8') }));
const longFiles = texts
  .map(({ file, text }) => ({ file, lines: text.split('\n').length - (text.endsWith('\n') ? 1 : 0) }))
  .filter(({ lines }) => lines > FILE_LINES);
const functions = texts.flatMap(({ file, text }) => longFunctions(file, text));
const count = (pattern: RegExp) => texts.reduce((sum, { text }) => sum + (text.match(pattern)?.length ?? 0), 0);

console.log(`structure of src/ (${files.length} files, issue 44's figures):`);
console.log(
  `  files over ${FILE_LINES} lines: ${longFiles.length}` +
    longFiles.map(({ file, lines }) => `\n    ${path.relative(ROOT, file)} (${lines})`).join(''),
);
console.log(
  `  functions over ${FUNCTION_LINES} lines: ${functions.length}${functions.map((f) => `\n    ${f}`).join('')}`,
);
console.log(`  '=== undefined ? {} :' spreads: ${count(/=== undefined \? \{\} :/g)}`);
console.log(`  places a GPU need is written ('gpuNeed:'): ${count(/\bgpuNeed:/g)}`);
