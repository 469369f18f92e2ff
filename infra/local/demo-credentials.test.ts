import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generateApiKey } from '../../shared/orgs/keys.ts';
import {
  demoSummary,
  keyPrefix,
  readDemoIds,
  writeDemoCredentials,
  type DemoCredential,
} from './demo-credentials.ts';

describe('demo credentials of npm start', () => {
  const dir = mkdtempSync(join(tmpdir(), 'frs-demo-'));
  const file = join(dir, 'demo-credentials.json');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const creds: DemoCredential[] = [
    { tier: 'verify', org_id: 'org_1', key_id: 'key_1', api_key: generateApiKey() },
    { tier: 'bureau', org_id: 'org_2', key_id: 'key_2', api_key: generateApiKey() },
  ];

  it('are written to a file only its owner can read, even over a world-readable one', () => {
    writeFileSync(file, '{}', { mode: 0o644 });
    writeDemoCredentials(file, creds);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const stored = JSON.parse(readFileSync(file, 'utf8')) as Record<string, { api_key: string }>;
    expect(stored.bureau!.api_key).toBe(creds[1]!.api_key);
    expect(readDemoIds(file)).toMatchObject({ verify: { org_id: 'org_1', key_id: 'key_1' } });
  });

  it('reach the console as the file name and key prefixes, never a whole key', () => {
    const text = demoSummary(file, creds);
    expect(text).toContain(file);
    for (const c of creds) {
      expect(text).not.toContain(c.api_key);
      expect(text).toContain(keyPrefix(c.api_key));
    }
    // The prefix and the portal's four-character hint: 28 of the 32 secret characters stay hidden.
    expect(keyPrefix(creds[0]!.api_key)).toBe(`${creds[0]!.api_key.slice(0, 13)}…`);
  });
});
