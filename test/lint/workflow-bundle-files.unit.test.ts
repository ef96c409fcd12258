import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs module of the lint set-up, without type declarations.
import { workflowBundleFiles } from '../../scripts/lint/workflow-bundle-files.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

describe('the files the determinism lint covers', () => {
  const files = (workflowBundleFiles as (root: string) => string[])(ROOT);

  it('follow the workflow bundle out of src/workflows into the rules, ledger folds and config it imports', () => {
    expect(files).toContain('src/workflows/generation.ts');
    expect(files).toContain('src/workflows/generation/state.ts');
    expect(files).toContain('src/rules/z-test.ts');
    expect(files).toContain('src/ledger/loop-state.ts');
    expect(files).toContain('src/config/duration.ts');
  });

  it('leave out what workflows import as types only (activities) and what they never import (the client)', () => {
    expect(files.filter((file) => file.startsWith('src/activities/') || file.startsWith('src/client/'))).toEqual([]);
  });
});
