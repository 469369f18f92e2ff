import { join } from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const eslint = new ESLint({ cwd: ROOT });

/**
 * The rules `npm run lint` reports on `code` as if it were the file at `path`: the file must
 * exist (the type checker's project knows it), its content on disk is not read.
 */
async function rulesFired(path: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(ROOT, path) });
  return (result?.messages ?? []).map((m) => m.ruleId ?? `fatal: ${m.message}`);
}

describe('npm run lint, with type information', () => {
  const write = 'async function write(): Promise<void> {}\n';

  it('fails on a promise nobody awaits, and passes when it is awaited or voided on purpose', async () => {
    const floating = `${write}export function record(): void {\n  write();\n}\n`;
    expect(await rulesFired('services/audit-sink/sink.ts', floating)).toContain(
      '@typescript-eslint/no-floating-promises',
    );
    const awaited = `${write}export async function record(): Promise<void> {\n  await write();\n}\n`;
    expect(await rulesFired('services/audit-sink/sink.ts', awaited)).toEqual([]);
    const voided = `${write}export function record(): void {\n  void write();\n}\n`;
    expect(await rulesFired('services/audit-sink/sink.ts', voided)).toEqual([]);
  });

  it('fails on a promise passed where a callback returns nothing', async () => {
    const misused = `${write}export const t = setTimeout(async () => {\n  await write();\n}, 1);\n`;
    expect(await rulesFired('services/api/main.ts', misused)).toContain(
      '@typescript-eslint/no-misused-promises',
    );
  });

  it('fails on awaiting what is not a promise', async () => {
    expect(await rulesFired('shared/config.ts', 'export const n = await 1;\n')).toContain(
      '@typescript-eslint/await-thenable',
    );
  });

  it('fails on a switch over a union that forgets a member', async () => {
    const partial =
      "export function f(t: 'a' | 'b'): number {\n  switch (t) {\n    case 'a':\n      return 1;\n  }\n  return 0;\n}\n";
    expect(await rulesFired('shared/config.ts', partial)).toContain(
      '@typescript-eslint/switch-exhaustiveness-check',
    );
  });
});

describe('npm run lint, function length', () => {
  /** A function `lines` lines long as the rule counts them, plus a blank and a comment line it skips. */
  const fn = (lines: number) =>
    `export function f(): number {\n  let n = 0;\n\n  // why\n${'  n++;\n'.repeat(lines - 4)}  return n;\n}\n`;

  it('fails on a function over 80 lines in services/ or shared/, not counting blank and comment lines', async () => {
    expect(await rulesFired('services/api/node.ts', fn(81))).toEqual(['max-lines-per-function']);
    expect(await rulesFired('shared/config.ts', fn(81))).toEqual(['max-lines-per-function']);
    expect(await rulesFired('services/api/node.ts', fn(80))).toEqual([]);
  });

  it('fails on a function over 80 lines in the harnesses and scripts of test/, loadtest/ and infra/', async () => {
    expect(await rulesFired('test/cluster/faults.ts', fn(81))).toEqual(['max-lines-per-function']);
    expect(await rulesFired('test/cluster/faults.ts', fn(80))).toEqual([]);
    expect(await rulesFired('loadtest/cluster-latency.ts', fn(81))).toEqual(['max-lines-per-function']);
    expect(await rulesFired('infra/harness/wait.ts', fn(81))).toEqual(['max-lines-per-function']);
  });

  it('lets a test be as long as its scenario', async () => {
    expect(await rulesFired('services/api/metrics.test.ts', fn(200))).toEqual([]);
    expect(await rulesFired('test/repo/lint-rules.test.ts', fn(200))).toEqual([]);
  });
});

describe('npm run lint, import boundaries', () => {
  const restricted = 'no-restricted-imports';

  it('fails when a service imports another service, the admin CLI included', async () => {
    expect(await rulesFired('services/portal/portal.ts', "import '../api/node.ts';\n")).toEqual([restricted]);
    expect(await rulesFired('services/portal/routes/keys.ts', "import '../../api/node.ts';\n")).toEqual([
      restricted,
    ]);
    expect(await rulesFired('services/admin/cli.ts', "import '../portal/portal.ts';\n")).toEqual([
      restricted,
    ]);
    expect(await rulesFired('services/api/main.ts', "import '../../services/refresher/main.ts';\n")).toEqual([
      restricted,
    ]);
  });

  it('fails when shared/ imports a service', async () => {
    expect(await rulesFired('shared/audit/history.ts', "import '../../services/api/node.ts';\n")).toEqual([
      restricted,
    ]);
  });

  it('fails when anything outside test/ imports test/', async () => {
    expect(await rulesFired('loadtest/bench.ts', "import '../test/helpers/in-process.ts';\n")).toEqual([
      restricted,
    ]);
    expect(await rulesFired('services/api/main.ts', "import '../../test/helpers/in-process.ts';\n")).toEqual([
      restricted,
    ]);
  });

  it('fails when a layer of shared/ imports a layer above it', async () => {
    const climbs: [string, string][] = [
      ['shared/vocabulary/score-terms.ts', '../ids.ts'],
      ['shared/config.ts', './capabilities/registry.ts'],
      ['shared/clients/redis.ts', '../metrics-access.ts'],
      ['shared/resolution/ip.ts', '../capabilities/registry.ts'],
      ['shared/capabilities/definition.ts', '../scoring/evidence.ts'],
      ['shared/capabilities/ip-tor-exit/finding.ts', '../../scoring/engine.ts'],
      ['shared/scoring/engine.ts', '../contract/response.ts'],
      ['shared/scoring/calibration/build.ts', '../../contract/request.ts'],
      ['shared/contract/response.ts', '../audit/record.ts'],
    ];
    for (const [file, target] of climbs) {
      expect(await rulesFired(file, `import '${target}';\n`), `${file} -> ${target}`).toEqual([restricted]);
    }
  });

  it('passes an import into the same layer or one below, and any import of a test beside the code', async () => {
    const down =
      "import '../capabilities/index.ts';\nimport '../resolution/ip.ts';\nimport '../clients/redis.ts';\n" +
      "import '../vocabulary/score-terms.ts';\nimport './weights.ts';\n";
    expect(await rulesFired('shared/scoring/engine.ts', down)).toEqual([]);
    expect(await rulesFired('shared/audit/record.ts', "import '../contract/response.ts';\n")).toEqual([]);
    expect(await rulesFired('shared/resolution/phone.test.ts', "import '../scoring/engine.ts';\n")).toEqual(
      [],
    );
  });

  it('passes what the boundaries allow: a service into its own folders and shared/, a test anywhere', async () => {
    const ok = "import '../../shared/portal/config.ts';\nimport '../views/layout.ts';\n";
    expect(await rulesFired('services/portal/routes/keys.ts', ok)).toEqual([]);
    const test = "import '../../services/api/node.ts';\nimport '../helpers/in-process.ts';\n";
    expect(await rulesFired('test/integration/controls.test.ts', test)).toEqual([]);
  });
});
