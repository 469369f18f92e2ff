import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * Import boundaries: a service reaches into `shared/`, never into another service (what two
 * services share moves to `shared/`); `shared/` serves the services and imports none; nothing
 * outside `test/` imports `test/` (what tests and benchmarks both use lives in `infra/harness/`).
 * Specifiers are relative, so each pattern matches the climb out of the importer's folder.
 */
const SERVICES = readdirSync(join(import.meta.dirname, 'services'), { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name);
const intoTest = {
  regex: String.raw`^(\.\./)+test/`,
  message: 'Only tests import test/: move what this needs to shared/ or infra/harness/.',
};
const intoServices = {
  regex: String.raw`^(\.\./)+services/`,
  message: 'shared/ serves the services and imports none of them.',
};
const intoOtherService = (own) => ({
  regex: String.raw`^(\.\./)+(services/)?(${SERVICES.filter((s) => s !== own).join('|')})/`,
  message: `services/${own} imports no other service: move what both need to shared/.`,
});
const boundaries = (patterns) => ({ 'no-restricted-imports': ['error', { patterns }] });

export default tseslint.config(
  { ignores: ['node_modules/', '.stack/', '.tools/', 'coverage/', 'loadtest/results/', 'k6/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'off',
    },
  },
  {
    // Rules that need the type checker: a promise nobody awaits (an audit record lost
    // without a log line), a promise handed where a callback's return is ignored, an
    // `await` on a non-promise, a `switch` over a union that forgot a member.
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': [
        'error',
        { considerDefaultExhaustiveForUnions: true, requireDefaultForNonUnion: false },
      ],
    },
  },
  { files: ['**/*.ts'], ignores: ['test/**'], rules: boundaries([intoTest]) },
  { files: ['shared/**/*.ts'], rules: boundaries([intoTest, intoServices]) },
  ...SERVICES.map((own) => ({
    files: [`services/${own}/**/*.ts`],
    rules: boundaries([intoTest, intoOtherService(own)]),
  })),
  {
    // The portal's one browser script.
    files: ['services/portal/static/**/*.js'],
    languageOptions: {
      sourceType: 'script',
      globals: {
        document: 'readonly',
        Element: 'readonly',
        navigator: 'readonly',
        fetch: 'readonly',
        setInterval: 'readonly',
      },
    },
  },
  {
    // A function fits on a screen: one that does not is split by what each part decides (a route
    // table, a command table, a metric family each). Tests are exempt: a scenario reads top-down.
    files: ['services/**/*.ts', 'shared/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: { 'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }] },
  },
);
