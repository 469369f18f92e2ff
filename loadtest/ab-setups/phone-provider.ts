/**
 * A/B of the live phone lookup (SETUP=loadtest/ab-setups/phone-provider.ts): `before` runs without
 * a provider; `after` with Twilio configured, its stand-in answering in DELAY_MS (default 120).
 *
 * OPTED_IN=1: `after` scores for an organisation that opted in (a monthly cap), so its p99 shows
 * what a provider answering in DELAY_MS costs the caller; without it the bench's organisation has
 * no cap, and the A/B shows that a configured provider leaves everyone else's hot path alone.
 * The lookup cache is emptied first, so the first pass over the subjects misses it as a fresh
 * deployment would (the bench's subjects repeat little within a run).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Redis } from 'ioredis';
import { unlinkPrefix } from '../../infra/harness/feed-server.ts';
import type { AbSetup, AbSetupContext } from './setup.ts';

const ROOT = join(import.meta.dirname, '../..');

export default async function phoneProvider({ cfg, redis, store }: AbSetupContext): Promise<AbSetup> {
  await unlinkPrefix(redis as Redis, `${cfg.CAPABILITY_KEY_PREFIX}:phone-lookup:`);
  const server = spawn(process.execPath, [join(ROOT, 'loadtest/servers/phone-stand-in.ts')], {
    env: { ...process.env, DELAY_MS: process.env.DELAY_MS ?? '120' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: server.stdout! }).once('line', resolve);
    server.once('exit', (code) => reject(new Error(`phone stand-in exited with ${code}`)));
  });
  let apiKey: string | undefined;
  if (process.env.OPTED_IN === '1') {
    const org = await store.createOrg({
      name: 'ab-opted-in',
      tier: 'bureau',
      rateRps: 1_000_000,
      credits: 1e9,
    });
    await store.updateOrg(org.org_id, { phone_lookup_cap: 1_000_000_000 });
    apiKey = (await store.createKey(org.org_id)).api_key;
  }
  return {
    after: {
      env: {
        PHONE_LOOKUP_PROVIDER: 'twilio',
        TWILIO_ACCOUNT_SID: 'AC_TEST',
        TWILIO_AUTH_TOKEN: 'bench',
        TWILIO_LOOKUP_URL: url,
      },
      ...(apiKey ? { apiKey } : {}),
    },
    teardown: async () => {
      server.kill('SIGTERM');
    },
  };
}
