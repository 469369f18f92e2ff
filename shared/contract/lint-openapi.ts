/**
 * `npm run lint:openapi`: writes the served document to a temporary file and lints it with
 * Redocly's recommended rules. Uses the project's @redocly/cli when installed, else npx fetches
 * the pinned version into its own cache (outside the project).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openApiYaml } from './openapi.ts';

const REDOCLY = '@redocly/cli@2.77.0';

const dir = mkdtempSync(join(tmpdir(), 'frs-openapi-'));
const file = join(dir, 'openapi.yaml');
writeFileSync(file, openApiYaml());
try {
  execFileSync('npx', ['--yes', REDOCLY, 'lint', '--extends=recommended', file], { stdio: 'inherit' });
} catch {
  process.exitCode = 1;
}
