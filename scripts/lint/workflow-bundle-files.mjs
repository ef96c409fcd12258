// The source files the workflow bundle takes in: every file reached from src/workflows/index.ts by
// value imports (type-only imports are erased and never bundled). ESLint's determinism rule applies
// to exactly these, so a helper that moves into the bundle is checked the day it moves.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

// The workflows, and the workflow interceptors bundled beside them (src/tracing/workflow-interceptors.ts).
const ENTRIES = ['src/workflows/index.ts', 'src/workflows/trace-propagation.ts'];
// `import x from '...'`, `import { a } from '...'`, `export { a } from '...'`, `export * from '...'`;
// not `import type ...` / `export type ...`.
const VALUE_IMPORT = /^\s*(?:import|export)\s+(?!type\b)(?:[^'";]*?\sfrom\s+)?['"](\.{1,2}\/[^'"]+)['"]/gm;

/** Relative to `root`, in a stable order. */
export function workflowBundleFiles(root) {
  const seen = new Set();
  const visit = (file) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(path.join(root, file), 'utf8');
    for (const match of text.matchAll(VALUE_IMPORT)) {
      const target = path.normalize(path.join(path.dirname(file), match[1].replace(/\.js$/, '.ts')));
      if (existsSync(path.join(root, target))) visit(target);
    }
  };
  for (const entry of ENTRIES) visit(entry);
  return [...seen].sort();
}
