// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';

const nodeBuiltins = [
  'assert', 'async_hooks', 'buffer', 'child_process', 'cluster', 'crypto', 'dgram', 'dns',
  'events', 'fs', 'fs/promises', 'http', 'http2', 'https', 'net', 'os', 'path', 'perf_hooks',
  'process', 'readline', 'stream', 'timers', 'tls', 'url', 'util', 'v8', 'vm', 'worker_threads', 'zlib',
];

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', '.tools/**', '.temporal/**', 'artifacts/**', 'bin/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true, allowNullish: true }],
    },
  },
  {
    // Workflow code is replayed: no Node built-ins, no I/O libraries, no clocks of its own.
    files: ['src/workflows/**/*.ts', 'src/rules/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [...nodeBuiltins, 'execa', 'yaml', '@temporalio/activity', '@temporalio/client', '@temporalio/worker']
          .map((name) => ({ name, message: 'Workflow code must stay deterministic: do I/O in an activity.' })),
        patterns: [{ group: ['node:*'], message: 'Workflow code must not import Node built-ins.' },
          { group: ['**/activities/*', '!**/activities/index', '**/activities/index'], allowTypeImports: true, message: 'Import activities as types only.' }],
      }],
    },
  },
  {
    // No import cycles: every module's dependencies finish loading before it runs. Type-only
    // imports are erased at run time, so the rule does not follow them.
    plugins: { 'import-x': importX },
    settings: {
      'import-x/extensions': ['.ts', '.js', '.mjs'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/resolver-next': [createTypeScriptImportResolver()],
    },
    rules: { 'import-x/no-cycle': 'error' },
  },
  {
    files: ['**/*.js', '**/*.cjs', 'scripts/**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
);
