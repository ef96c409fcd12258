// The project's TypeScript as JavaScript beside it, for a machine that carries no esbuild binary
// (scripts/gpu-run/pack.sh): each file transformed on its own, as tsx transforms it when it loads
// it, so `node src/client/main.js` runs what `bin/champion-loop.js` runs. Also writes
// `.gpu-run-sources.sha256` (sha256sum's format) naming each source, so that run.sh can refuse a
// carry older than the working tree it runs beside.
//   tsx scripts/gpu-run/precompile.ts <dest dir>
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { transformSync } from 'esbuild';

/** What the GPU run loads as TypeScript: the CLI and workers, the dev server script, the run's checker. */
export const SOURCES = ['src', 'scripts/dev-server.ts', 'scripts/gpu-run/check.ts', 'test/helpers/ledger-rules.ts'];

/** Every .ts file (no declarations) under the given project-relative paths. */
export function typescriptFiles(root: string, sources: readonly string[] = SOURCES): string[] {
  const files: string[] = [];
  const visit = (relative: string): void => {
    const full = path.join(root, relative);
    if (relative.endsWith('.ts')) {
      if (!/\.d\.[cm]?ts$/.test(relative)) files.push(relative);
      return;
    }
    for (const entry of readdirSync(full, { withFileTypes: true })) {
      const child = path.posix.join(relative, entry.name);
      if (entry.isDirectory() || entry.name.endsWith('.ts')) visit(child);
    }
  };
  for (const source of sources) visit(source);
  return files.sort();
}

/** One file as tsx turns it into JavaScript (esbuild, ESM, Node 20, unused imports dropped as types). */
export function compile(source: string, file: string): string {
  return transformSync(source, {
    loader: 'ts',
    format: 'esm',
    target: 'node20',
    sourcefile: file,
    tsconfigRaw: { compilerOptions: { verbatimModuleSyntax: false } },
  }).code;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dest = process.argv[2];
  if (dest === undefined) throw new Error('usage: tsx scripts/gpu-run/precompile.ts <dest dir>');
  const root = fileURLToPath(new URL('../../', import.meta.url));
  const sums: string[] = [];
  for (const file of typescriptFiles(root)) {
    const source = readFileSync(path.join(root, file));
    const out = path.join(dest, file.replace(/\.ts$/, '.js'));
    mkdirSync(path.dirname(out), { recursive: true });
    writeFileSync(out, compile(source.toString('utf8'), file));
    sums.push(`${createHash('sha256').update(source).digest('hex')}  ${file}`);
  }
  writeFileSync(path.join(dest, '.gpu-run-sources.sha256'), `${sums.join('\n')}\n`);
  console.log(`${sums.length} TypeScript files compiled`);
}
