// A fast test is found by its name (`*.unit.test.ts`, what `npm run test:unit` runs), so the name
// must stay true: no file so named, nor any test module it imports, may use what only the whole
// suite's global set-up provides (`inject`: the Temporal CLI, weed, the workflow bundle) or start a
// dev server, a worker, an object store, MLflow or Jaeger.
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** What a unit test may not reach: each a pattern and what it stands for. */
const SLOW = [
  { pattern: /\binject\(/, what: "vitest's inject (the global set-up)" },
  { pattern: /@temporalio\/(?:testing|worker)['/]/, what: 'a Temporal test server or worker' },
  { pattern: /src\/devserver\//, what: 'the dev server' },
  {
    pattern:
      /helpers\/(?:test-server|loop-harness|process-loop|worker-processes|object-store|mlflow|jaeger|bounded-loop|lane-faults|copy-faults|loop-checks|bundle-file|workflow-bundle)\.js/,
    what: 'a helper that starts a server, a worker or a loop',
  },
] as const;

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'fixtures' ? [] : testFiles(path);
    return entry.name.endsWith('.unit.test.ts') ? [path] : [];
  });
}

/** The first slow thing a test file reaches, through its relative imports inside test/. */
function slowReach(file: string, seen = new Set<string>()): string | undefined {
  if (seen.has(file)) return undefined;
  seen.add(file);
  const text = readFileSync(file, 'utf8');
  const slow = SLOW.find(({ pattern }) => pattern.test(text));
  if (slow) return `${relative(ROOT, file)} uses ${slow.what}`;
  for (const [, specifier] of text.matchAll(/from '(\.[^']+)'/g)) {
    const module = resolve(dirname(file), specifier!).replace(/\.js$/, '.ts');
    if (!module.startsWith(join(ROOT, 'test')) || !existsSync(module)) continue;
    const found = slowReach(module, seen);
    if (found) return found;
  }
  return undefined;
}

describe('unit tests, found by their name', () => {
  const files = testFiles(join(ROOT, 'test'));

  it('are there (the rules, the config, the ledger folds at least)', () => {
    const names = files.map((file) => relative(ROOT, file));
    expect(names.length).toBeGreaterThan(100);
    expect(names).toContain('test/rules/champion.unit.test.ts');
    expect(names).toContain('test/ledger/champion-identity.unit.test.ts');
  });

  it('reach no server, worker or global set-up', () => {
    const slow = files.map((file) => slowReach(file)).filter((found) => found !== undefined);
    expect(slow).toEqual([]);
  });

  it('the check itself sees a slow helper a test imports', () => {
    expect(slowReach(join(ROOT, 'test/workflows/control.test.ts'))).toMatch(
      /^test\/workflows\/control\.test\.ts uses a helper that starts/,
    );
  });
});
