// @ts-check
import eslint from '@eslint/js';
import prettier from 'eslint-config-prettier/flat';
import { defineConfig, globalIgnores } from 'eslint/config';
import tseslint from 'typescript-eslint';

// The rule sets and every departure from them are explained in docs/code-style.md.
export default defineConfig(
  globalIgnores([
    'dist/',
    'coverage/',
    '.tap/',
    'data/',
    'bench/results/',
    'test-output/',
    'test/clients/node_modules/',
    'test/fixtures/client-requests/',
    'test/fixtures/open-responses/',
  ]),
  eslint.configs.recommended,
  tseslint.configs.strictTypeChecked,
  tseslint.configs.stylisticTypeChecked,
  {
    languageOptions: {
      // One TypeScript program per tsconfig.json, found from each file: the root one, and src/dashboard/ui's (DOM, JSX).
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // `T[]` for simple types, `Array<A | B>` where the element is not: the tree's existing spelling.
      '@typescript-eslint/array-type': ['error', { default: 'array-simple' }],
      // Records with an index signature (Json objects, process.env) are read with brackets on purpose: the key is data, not a declared field.
      '@typescript-eslint/dot-notation': ['error', { allowIndexSignaturePropertyAccess: true }],
      // `(res) => res.end()` callbacks are the tree's style; a void value used as a value is still an error.
      '@typescript-eslint/no-confusing-void-expression': ['error', { ignoreArrowShorthand: true }],
      // tap runs and reports a subtest itself; its promise is not lost when not awaited.
      '@typescript-eslint/no-floating-promises': [
        'error',
        { allowForKnownSafePromises: [{ from: 'package', name: 'PromiseWithSubtest', package: '@tapjs/core' }] },
      ],
      // It asks for `x!` where the tree writes `x as T`, and strict's no-non-null-assertion forbids `x!`: the two fight.
      '@typescript-eslint/non-nullable-type-assertion-style': 'off',
      // Async implementations of Promise-returning interfaces (the SQLite store, test doubles) need no await to be right.
      '@typescript-eslint/require-await': 'off',
      // Numbers in messages are the common case and print as expected; objects, null and undefined are still refused.
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
    },
  },
  {
    files: ['test/**/*.ts'],
    rules: {
      // Tests read wire JSON (`Response.json()` is `any`) by its path: a wrong path fails the assertion that reads it.
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  { files: ['**/*.js'], extends: [tseslint.configs.disableTypeChecked] },
  prettier,
);
