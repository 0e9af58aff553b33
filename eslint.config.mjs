import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', 'coverage/**', '.data/**'] },
  js.configs.recommended,
  {
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { module: 'readonly', require: 'readonly', __dirname: 'readonly', process: 'readonly' },
    },
  },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      'no-console': 'off',
    },
  },
  {
    // Workflow code runs in Temporal's deterministic sandbox: no Node built-ins, no clocks, no randomness.
    // Which project modules it may import is a layer rule (.dependency-cruiser.cjs).
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: ['node:*', 'fs', 'crypto', 'http', 'https', 'knex', 'pg'] }],
      'no-restricted-globals': ['error', 'setTimeout', 'setInterval'],
    },
  },
  // Formatting is prettier's (npm run lint checks it): no stylistic rule may disagree with it.
  prettier,
);
