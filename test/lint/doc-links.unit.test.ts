import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The docs point at each other and at the code by relative links and by `docs/<file>.md` in
// prose; moving a page must not leave a pointer to where it was.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

async function markdownFiles(): Promise<string[]> {
  const docs = (await readdir(path.join(ROOT, 'docs'))).filter((name) => name.endsWith('.md'));
  return [
    'README.md',
    'CHANGELOG.md',
    'bench/README.md',
    'test/reliability/README.md',
    ...docs.map((name) => `docs/${name}`),
  ];
}

/** Relative targets of `[text](target)` links, without their #anchor. */
function linkTargets(text: string): string[] {
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)]
    .map(([, target]) => (target as string).split('#')[0] as string)
    .filter((target) => target !== '' && !/^[a-z]+:/.test(target));
}

describe('the docs', () => {
  it('link only to files that exist', async () => {
    const broken: string[] = [];
    for (const file of await markdownFiles()) {
      const text = await readFile(path.join(ROOT, file), 'utf8');
      for (const target of linkTargets(text))
        if (!existsSync(path.join(ROOT, path.dirname(file), target))) broken.push(`${file} -> ${target}`);
    }
    expect(broken).toEqual([]);
  });

  it('name only docs pages that exist, wherever they are named (code comments, examples, tests)', async () => {
    const named = new Set<string>();
    const scan = async (dir: string): Promise<void> => {
      for (const entry of await readdir(path.join(ROOT, dir), { withFileTypes: true })) {
        const relative = path.join(dir, entry.name);
        if (entry.isDirectory()) {
          if (!['node_modules', 'histories', 'kept'].includes(entry.name)) await scan(relative);
        } else if (/\.(ts|mjs|md|yaml)$/.test(entry.name)) {
          const text = await readFile(path.join(ROOT, relative), 'utf8');
          for (const [page] of text.matchAll(/\bdocs\/[\w-]+\.md\b/g)) named.add(page);
        }
      }
    };
    for (const dir of ['src', 'bench', 'examples', 'test', 'scripts', 'docs']) await scan(dir);
    for (const file of ['README.md', 'CHANGELOG.md', 'temporal-dev.yaml']) {
      const text = await readFile(path.join(ROOT, file), 'utf8');
      for (const [page] of text.matchAll(/\bdocs\/[\w-]+\.md\b/g)) named.add(page);
    }
    expect(named.size).toBeGreaterThan(3);
    expect([...named].filter((page) => !existsSync(path.join(ROOT, page)))).toEqual([]);
  });
});
