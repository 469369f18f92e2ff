/**
 * The demo organisations' API keys of `npm start`, kept where only their owner can read them: a
 * file of mode 600 in the stack directory. The console (often a log file or a shared terminal
 * scrollback) gets where the file is and each key's prefix, never a whole key.
 */
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import type { Tier } from '../../shared/vocabulary/score-terms.ts';
import { API_KEY_PREFIX, keyHint } from '../../shared/orgs/keys.ts';

export interface DemoCredential {
  tier: Tier;
  org_id: string;
  key_id: string;
  api_key: string;
}

/** The file's name in the stack directory. */
export const DEMO_CREDENTIALS_FILE = 'demo-credentials.json';

/**
 * Writes `creds` to `file` (tier -> org_id, key_id, api_key) with mode 600: written to a new file
 * created 600 and renamed over the old one, so there is no moment where the keys sit in a file
 * readable by others, even when an older file had looser permissions.
 */
export function writeDemoCredentials(file: string, creds: readonly DemoCredential[]): void {
  const tmp = `${file}.tmp`;
  rmSync(tmp, { force: true });
  const body = Object.fromEntries(creds.map(({ tier, ...rest }) => [tier, rest]));
  writeFileSync(tmp, `${JSON.stringify(body, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  renameSync(tmp, file);
}

/** The organisation and key ids of the last start, by tier (to reuse the organisations and revoke the old keys). */
export function readDemoIds(file: string): Partial<Record<Tier, { org_id: string; key_id?: string }>> {
  return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {};
}

/** What the console may show of a key: its prefix and the hint the portal shows too, not the secret. */
export function keyPrefix(apiKey: string): string {
  return `${API_KEY_PREFIX}${keyHint(apiKey)}…`;
}

/** The console's lines about the demo organisations: the file to read, ids and key prefixes. */
export function demoSummary(file: string, creds: readonly DemoCredential[]): string {
  return [
    `Demo organisations (a new start issues new keys and revokes the last ones). The keys are in`,
    `${file} (readable by you only):`,
    ...creds.map((d) => `  ${d.tier.padEnd(7)} ${d.org_id}  ${keyPrefix(d.api_key)}`),
  ].join('\n');
}
