/** `npm run docs:api`: writes docs/api.md, the Markdown rendering of the served OpenAPI document. */
import { writeFileSync } from 'node:fs';
import { renderApiReference } from './api-reference.ts';

export const API_REFERENCE_FILE = new URL('../../../docs/api.md', import.meta.url);

if (import.meta.main) {
  writeFileSync(API_REFERENCE_FILE, renderApiReference());
  console.log('wrote docs/api.md');
}
