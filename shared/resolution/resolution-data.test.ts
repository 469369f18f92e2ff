import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tableArrays } from './resolution-cache.ts';
import { loadResolutionData, typedArrayBytes } from './resolution-data.ts';

const bytesOf = (a: ArrayBufferView) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

const dir = mkdtempSync(join(tmpdir(), 'frs-resolution-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('loadResolutionData', () => {
  it('parses the packages once, then reads the same tables from the binary cache', () => {
    const parsed = loadResolutionData({ cacheDir: dir });
    expect(parsed.origin).toBe('packages');
    expect(parsed.cacheError).toBeUndefined();
    expect(readdirSync(dir)).toEqual([expect.stringMatching(/^resolution-[0-9a-f]{16}\.bin$/)]);

    const cached = loadResolutionData({ cacheDir: dir });
    expect(cached.origin).toBe('cache');
    expect(cached.sources).toEqual(parsed.sources);
    expect(typedArrayBytes(cached)).toBe(typedArrayBytes(parsed));
    // Byte-wise comparison: element-wise deep equality on 400k-row arrays takes seconds.
    const parsedArrays = tableArrays(parsed);
    for (const [name, array] of Object.entries(tableArrays(cached))) {
      const expected = parsedArrays[name]!;
      expect(array.constructor, name).toBe(expected.constructor);
      expect(bytesOf(array).equals(bytesOf(expected)), name).toBe(true);
    }
    expect(cached.carriers.names).toEqual(parsed.carriers.names);
    expect(cached.carriers.maxPrefixLength).toBe(parsed.carriers.maxPrefixLength);
    expect(JSON.stringify([...cached.networks.asNames])).toBe(JSON.stringify([...parsed.networks.asNames]));
  });

  it('rebuilds over a damaged cache file', () => {
    const [file] = readdirSync(dir);
    writeFileSync(join(dir, file!), 'not a cache');
    expect(loadResolutionData({ cacheDir: dir }).origin).toBe('packages');
    expect(loadResolutionData({ cacheDir: dir }).origin).toBe('cache');
  });

  it('still loads when the cache cannot be written', () => {
    const blocked = join(dir, 'a-file');
    writeFileSync(blocked, '');
    const data = loadResolutionData({ cacheDir: join(blocked, 'cache') });
    expect(data.origin).toBe('packages');
    expect(data.cacheError).toMatch(/ENOTDIR|EEXIST/);
  });
});
