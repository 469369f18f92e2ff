import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderApiReference } from './api-reference.ts';
import { API_REFERENCE_FILE } from './docs-api.ts';
import { CONTRACT_VERSION } from '../../../shared/contract/openapi.ts';

describe('docs/api.md', () => {
  it('is the rendering of the document the API serves (run `npm run docs:api` after a contract change)', () => {
    expect(readFileSync(API_REFERENCE_FILE, 'utf8')).toBe(renderApiReference());
  });

  it('shows what the document says: every operation, schema and error code', () => {
    const md = renderApiReference();
    expect(md).toContain(`# Fraud Risk Scoring API ${CONTRACT_VERSION}`);
    for (const op of ['POST /v1/score', 'GET /v1/explain/{score_id}', 'GET /v1/health', 'GET /readyz']) {
      expect(md).toContain(`### ${op}`);
    }
    expect(md).toContain('### ScoreResponse');
    expect(md).toContain('| `E_HISTORY_UNAVAILABLE` | 503 |');
    expect(md).toContain('`options.shadow_version`');
  });
});
