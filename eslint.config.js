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
      // Not in the sets: a switch over a union without a `default` must name every member.
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      // `T[]` for simple types, `Array<A | B>` where the element is not: the tree's existing spelling.
      '@typescript-eslint/array-type': ['error', { default: 'array-simple' }],
      // Records with an index signature (Json objects, process.env) are read with brackets on purpose: the key is data, not a declared field.
      '@typescript-eslint/dot-notation': ['error', { allowIndexSignaturePropertyAccess: true }],
      // `(res) => res.end()` and `return next();` in a void function are the tree's style; a void value used as a value is still an error.
      '@typescript-eslint/no-confusing-void-expression': ['error', { ignoreArrowShorthand: true, ignoreVoidReturningFunctions: true }],
      // tap runs and reports a subtest itself; its promise is not lost when not awaited.
      '@typescript-eslint/no-floating-promises': [
        'error',
        { allowForKnownSafePromises: [{ from: 'package', name: 'PromiseWithSubtest', package: '@tapjs/core' }] },
      ],
      // It asks for `x!` where the tree writes `x as T`, and strict's no-non-null-assertion forbids `x!`: the two fight.
      '@typescript-eslint/non-nullable-type-assertion-style': 'off',
      // The tree's context objects (a plugin's setup context, test harnesses) are closures typed with method syntax and destructured on purpose.
      '@typescript-eslint/unbound-method': 'off',
      // A leading underscore marks what is unused on purpose: an Express error handler's fourth parameter, a field left out of a rest copy.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      // `||` falls back on '' and 0 on purpose where a string or number is read (an empty label, zero attempts).
      '@typescript-eslint/prefer-nullish-coalescing': ['error', { ignorePrimitives: { string: true, number: true } }],
      // A `let` that a closure reads before its one assignment cannot be a const.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // What was caught is passed on as it came (an unknown relayed, never a literal made up).
      '@typescript-eslint/only-throw-error': ['error', { allowThrowingUnknown: true }],
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingUnknown: true }],
      // The tree deletes computed keys from its own working copies (a schema's keywords taken one by one).
      '@typescript-eslint/no-dynamic-delete': 'off',
      // String() of a wire field of unknown type is the tree's deliberate read-as-text (simulators echo what they were sent, as the vendors do);
      // an object in a template literal is still refused by restrict-template-expressions.
      '@typescript-eslint/no-base-to-string': 'off',
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
      // Test doubles stand in for Node's and the SDKs' classes by their shape.
      '@typescript-eslint/no-unsafe-class-instance-assignment': 'off',
      // Tests check at run time what the types already claim (a wire field's value, a handle's presence).
      '@typescript-eslint/no-unnecessary-condition': 'off',
      '@typescript-eslint/restrict-plus-operands': ['error', { allowAny: true }],
      // Tests send the fields that clients still send, deprecated in the SDKs' types or not.
      '@typescript-eslint/no-deprecated': 'off',
    },
  },
  { files: ['**/*.js', '**/*.mjs'], extends: [tseslint.configs.disableTypeChecked] },
  prettier,
);
