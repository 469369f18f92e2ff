import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generateClientTypes, SCHEMA_FILE } from './generate.ts';

describe('client/schema.ts', () => {
  it('is what openapi-typescript makes of the served document (run `npm run client:generate` after a contract change)', async () => {
    expect(readFileSync(SCHEMA_FILE, 'utf8')).toBe(await generateClientTypes());
  });
});
