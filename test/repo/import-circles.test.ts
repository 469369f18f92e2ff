import { join } from 'node:path';
import madge from 'madge';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');

/** The import graph of shared/ and services/, type-only imports included, as `npx madge` reads it. */
async function importGraph() {
  return madge(['shared', 'services'], {
    baseDir: ROOT,
    fileExtensions: ['ts'],
    tsConfig: join(ROOT, 'tsconfig.json'),
  });
}

describe('imports of shared/ and services/', () => {
  it('form no circle', async () => {
    const graph = await importGraph();
    // A graph madge could not resolve has no edges and so no circles: check it read the imports.
    expect(graph.obj()['shared/contract/response.ts']).toContain('shared/scoring/reason-codes.ts');
    const circles = graph.circular().map((c) => c.join(' > '));
    expect(circles).toEqual([]);
  });
});
