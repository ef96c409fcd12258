// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';

import { builtinModules } from 'node:module';
import { workflowBundleFiles } from './scripts/lint/workflow-bundle-files.mjs';

// Every Node built-in, with and without its `node:` prefix.
const nodeBuiltins = [
  ...new Set(builtinModules.flatMap((name) => (name.startsWith('node:') ? [name] : [name, `node:${name}`]))),
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
      '@typescript-eslint/restrict-template-expressions': [
        'error',
        { allowNumber: true, allowBoolean: true, allowNullish: true },
      ],
    },
  },
  {
    // The bench is read by newcomers: each section is a set of small steps (issue 25).
    files: ['bench/**/*.ts'],
    rules: { 'max-lines-per-function': ['error', { max: 80 }] },
  },
  {
    // Layers point down: the workers and everything below them never reach up into the CLI.
    files: ['src/**/*.ts'],
    ignores: ['src/client/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/client/*', '!@temporalio/client'],
              message: 'src/client is the CLI, the top layer: move what both need below it.',
            },
          ],
        },
      ],
    },
  },
  {
    // Workflow code is replayed: no Node built-ins, no I/O libraries, no clocks of its own. It
    // applies to every file the workflow bundle takes in, wherever it lives (rules, ledger folds, config).
    files: workflowBundleFiles(import.meta.dirname),
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            ...nodeBuiltins,
            'execa',
            'yaml',
            '@temporalio/activity',
            '@temporalio/client',
            '@temporalio/worker',
          ].map((name) => ({ name, message: 'Workflow code must stay deterministic: do I/O in an activity.' })),
          patterns: [
            { group: ['node:*'], message: 'Workflow code must not import Node built-ins.' },
            {
              group: ['**/activities/*', '!**/activities/index', '**/activities/index'],
              allowTypeImports: true,
              message: 'Import activities as types only.',
            },
          ],
        },
      ],
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
