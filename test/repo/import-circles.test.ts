import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import madge from 'madge';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');

/** The import graph of `dirs` under `baseDir`, type-only imports included, as `npx madge` reads it. */
async function importGraph(dirs: string[], baseDir = ROOT) {
  return madge(dirs, {
    baseDir,
    fileExtensions: ['ts'],
    tsConfig: join(ROOT, 'tsconfig.json'),
  });
}

describe('imports of shared/ and services/', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'frs-circle-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('form no circle', async () => {
    const circles = (await importGraph(['shared', 'services'])).circular().map((c) => c.join(' > '));
    expect(circles).toEqual([]);
  });

  // A graph madge could not resolve has no edges and so no circles: the same reading must find
  // a circle made for it, closed by a type-only import with the `.ts` extension the code uses.
  it('would be found: a circle of its own, closed by a type-only import', async () => {
    writeFileSync(
      join(scratch, 'a.ts'),
      "import { b } from './b.ts';\nexport type A = number;\nexport const a = b;\n",
    );
    writeFileSync(join(scratch, 'b.ts'), "import type { A } from './a.ts';\nexport const b: A = 1;\n");
    const graph = await importGraph([scratch], scratch);
    expect(graph.obj()).toEqual({ 'a.ts': ['b.ts'], 'b.ts': ['a.ts'] });
    expect(graph.circular()).toEqual([['a.ts', 'b.ts']]);
  });
});
