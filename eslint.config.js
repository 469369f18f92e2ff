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

/**
 * The layers of shared/, bottom-up as a score flows. A module imports its own layer and the ones
 * below it, never one above, so no import climbs and no circle can cross two layers:
 *   1. vocabulary      shared/vocabulary/: the score's terms (tiers, bands, verdicts, actions,
 *                      benign exclusions, the subject and context the engine reads); imports
 *                      nothing of the project.
 *   2. infrastructure  shared/clients/, shared/clickhouse/ and the modules at the top of shared/
 *                      (config, logger, lifecycle, ids, sha256, ...).
 *   3. resolution      shared/resolution/: a number's and an address's facts, ranges, the codec.
 *   4. capabilities    shared/capabilities/: each capability's data, sources and finding; the
 *                      registry and the component keys and reason codes it declares.
 *   5. scoring         shared/scoring/: evidence, the engine, tiers, score versions, calibration.
 *   6. contract        shared/contract/: the API's schemas, errors, OpenAPI, response shaping.
 *   7. on top          audit/, backtest/, orgs/, outcomes/, portal/ and the two HTTP-edge modules
 *                      that answer with the contract's error body.
 * Tests beside the code may import any layer (a capability's test scores with the engine); they
 * are imported by nothing, so they cannot close a circle (test/repo/import-circles.test.ts).
 */
const EDGE_MODULES = ['http-client-errors', 'metrics-access'];
const LAYERS = [
  { name: 'vocabulary', files: ['shared/vocabulary/**/*.ts'], folders: ['vocabulary'] },
  {
    name: 'infrastructure',
    files: ['shared/*.ts', 'shared/clients/**/*.ts', 'shared/clickhouse/**/*.ts'],
    ignores: EDGE_MODULES.map((m) => `shared/${m}.ts`),
    folders: ['clients', 'clickhouse'],
  },
  { name: 'resolution', files: ['shared/resolution/**/*.ts'], folders: ['resolution'] },
  { name: 'capabilities', files: ['shared/capabilities/**/*.ts'], folders: ['capabilities'] },
  { name: 'scoring', files: ['shared/scoring/**/*.ts'], folders: ['scoring'] },
  { name: 'contract', files: ['shared/contract/**/*.ts'], folders: ['contract'] },
  {
    name: 'top',
    files: [],
    folders: ['audit', 'backtest', 'orgs', 'outcomes', 'portal'],
    modules: EDGE_MODULES,
  },
];
/** The imports a layer may not make: any folder or top-level module of a layer above it. */
const intoLayersAbove = (index) => {
  const above = LAYERS.slice(index + 1);
  const folders = above.flatMap((l) => l.folders);
  const modules = above.flatMap((l) => l.modules ?? []);
  const message = `shared/ layers (eslint.config.js): ${LAYERS[index].name} imports no layer above it; move what both need down.`;
  return [
    { regex: String.raw`^(\./|(\.\./)+)(${folders.join('|')})/`, message },
    { regex: String.raw`^(\./|(\.\./)+)(${modules.join('|')})\.ts$`, message },
  ];
};
// The vocabulary imports nothing of the project at all, whatever layer it would be.
const outOfVocabulary = {
  regex: String.raw`^\.\./`,
  message: 'shared/vocabulary/ is the bottom layer: it imports nothing of the project.',
};
const layerZones = LAYERS.flatMap((layer, index) =>
  layer.files.length === 0
    ? []
    : [
        {
          files: layer.files,
          ignores: ['**/*.test.ts', ...(layer.ignores ?? [])],
          rules: boundaries([
            intoTest,
            intoServices,
            ...intoLayersAbove(index),
            ...(layer.name === 'vocabulary' ? [outOfVocabulary] : []),
          ]),
        },
      ],
);

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
  ...layerZones,
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
    // table, a command table, a metric family each). The harnesses, benchmarks and scripts of
    // test/, loadtest/ and infra/ too; a test file's scenario is exempt: it reads top-down.
    files: ['services/**/*.ts', 'shared/**/*.ts', 'test/**/*.ts', 'loadtest/**/*.ts', 'infra/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: { 'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }] },
  },
);
