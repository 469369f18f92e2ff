/**
 * `npm run lint:openapi` (part of `npm run lint`): writes the served document to a temporary
 * file and lints it with the project's @redocly/cli and its recommended rules.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openApiYaml } from './document.ts';

const dir = mkdtempSync(join(tmpdir(), 'frs-openapi-'));
const file = join(dir, 'openapi.yaml');
writeFileSync(file, openApiYaml());
try {
  // No telemetry or update check: CI has no internet beyond package registries.
  execFileSync('redocly', ['lint', '--extends=recommended', file], {
    stdio: 'inherit',
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
  });
} catch {
  process.exitCode = 1;
}
