import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  CONFIGURATION_DOC_FILE,
  docComments,
  renderConfigurationDoc,
  renderSection,
} from './configuration.ts';

describe('docs/configuration.md', () => {
  it('is the rendering of the config schemas (run `npm run docs:config` after changing one)', () => {
    expect(readFileSync(CONFIGURATION_DOC_FILE, 'utf8')).toBe(renderConfigurationDoc());
  });

  it('names every variable the services parse, with its default', () => {
    const doc = renderConfigurationDoc();
    for (const name of ['PORT', 'REDIS_URL', 'FEED_TIMEOUT_MS', 'FEED_TOR_EXITS', 'PORTAL_SIGNIN_WINDOW_S']) {
      expect(doc).toContain(`| \`${name}\` |`);
    }
    expect(doc).toMatch(/\| `PORT` \| integer \(≥ 0, ≤ 65535\) \| `8080` \|/);
  });
});

describe('the generator', () => {
  it('reads the doc comment above each property of the named z.object', () => {
    const source = [
      'const other = z.object({ A: z.string() });',
      'export const envSchema = z.object({',
      '  /**',
      '   * First line',
      '   * second line.',
      '   */',
      '  A: z.string(),',
      '  // a plain comment is not documentation',
      '  B: z.string(),',
      '});',
    ].join('\n');
    const comments = docComments(source, 'envSchema');
    expect(comments.get('A')).toBe('First line second line.');
    expect(comments.has('B')).toBe(false);
  });

  it('refuses a variable without a description', () => {
    expect(() =>
      renderSection({
        title: 't',
        intro: 'i',
        schema: z.object({ UNDOCUMENTED_FOR_THE_TEST: z.string() }),
        source: '../../shared/config.ts',
        variable: 'envSchema',
      }),
    ).toThrow(/UNDOCUMENTED_FOR_THE_TEST/);
  });
});
