/** What `npm run bench` and `npm run bench:profile` both need before any load: subjects and a key. */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRedis } from '../shared/clients/redis.ts';
import type { Config } from '../shared/config.ts';
import { OrgStore } from '../shared/orgs/store.ts';

/**
 * The subject population k6 sends (generated when missing). An empty or broken one would turn
 * every scoring request into a 422: throws before anything is measured.
 */
export function ensureSubjects(file: string): void {
  if (!existsSync(file))
    execFileSync(process.execPath, [join(import.meta.dirname, 'subjects.ts')], { stdio: 'inherit' });
  let subjects: unknown;
  try {
    subjects = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    subjects = undefined;
  }
  if (!Array.isArray(subjects) || subjects.length < 100)
    throw new Error(
      `${file} is not a population of subjects (${Array.isArray(subjects) ? subjects.length : 'unreadable'}); ` +
        'regenerate it with `npm run subjects` (or delete it) and run again',
    );
}

/** A bureau organisation without a practical rate or credit limit, and its key. */
export async function benchApiKey(cfg: Config): Promise<string> {
  const redis = createRedis(cfg.REDIS_URL, { connectionName: 'frs-bench' });
  try {
    const store = new OrgStore(redis);
    const org = await store.createOrg({
      name: 'bench',
      tier: 'bureau',
      rateRps: 1_000_000,
      credits: 1_000_000_000,
    });
    return (await store.createKey(org.org_id)).api_key;
  } finally {
    redis.disconnect();
  }
}
