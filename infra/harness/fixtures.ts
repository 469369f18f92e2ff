import { randomInt } from 'node:crypto';
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { serviceRedisEnv, type RedisService } from '../local/redis-users.ts';
import { createClickHouse } from '../../shared/clients/clickhouse.ts';
import { createRedis } from '../../shared/clients/redis.ts';
import { loadConfig } from '../../shared/config.ts';
import type { Tier } from '../../shared/vocabulary/score-terms.ts';
import { OrgStore, type CreateOrgInput } from '../../shared/orgs/store.ts';
import { serviceEnv } from './processes.ts';

const run = promisify(execFile);

export const cfg = loadConfig();

/** Runs the admin CLI as an operator would (as the frs-admin Redis user) and parses its one JSON line. */
export async function admin(...args: string[]): Promise<Record<string, unknown>> {
  const entry = 'services/admin/cli.ts';
  const { stdout } = await run(process.execPath, [entry, ...args], { env: serviceEnv(entry) });
  return JSON.parse(stdout);
}

/** A client of the local stack's default user: for test set-up and inspection, not for services. */
export function redis() {
  return createRedis(cfg.REDIS_URL, { connectionName: 'frs-test' });
}

/**
 * A client logged in as `service`'s Redis ACL user, for a test that runs a service's own class
 * (not the whole service) and must see it work under the service's rules.
 */
export function redisAs(service: RedisService) {
  return createRedis(serviceRedisEnv(service).REDIS_URL!, { connectionName: `frs-test-${service}` });
}

/** The cache server that holds the explain copies (EXPLAIN_REDIS_URL). */
export function explainRedis() {
  return createRedis(cfg.EXPLAIN_REDIS_URL, { connectionName: 'frs-test-explain' });
}

export function clickhouse() {
  return createClickHouse(cfg.CLICKHOUSE_URL);
}

/** A fresh organisation with one key, made directly through the store the CLI uses. */
export async function orgWithKey(
  tier: Tier,
  extra: Omit<CreateOrgInput, 'name' | 'tier'> = {},
): Promise<{ orgId: string; apiKey: string; keyId: string }> {
  const r = redis();
  try {
    const store = new OrgStore(r);
    const org = await store.createOrg({ name: `test-${tier}`, tier, ...extra });
    const key = await store.createKey(org.org_id);
    return { orgId: org.org_id, apiKey: key.api_key, keyId: key.key_id };
  } finally {
    r.disconnect();
  }
}

export function scoreCall(url: string, apiKey: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${url}/v1/score`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' || body instanceof Uint8Array ? body : JSON.stringify(body),
  });
}

const hex16 = () => randomInt(0x10000).toString(16);

/**
 * A UK mobile number and a UK broadband address (Sky's IPv6 /32) that no other test reports: the
 * reputation ledger keeps reports for 180 days, so a test that needs a clean subject draws one
 * from a space too large to meet another run's. The number is drawn again until the numbering
 * plan calls it a mobile: about 1 in 200 of +4479 numbers (+447911 3-6 and 9) is outside every
 * allocated range and scores as an invalid number, which a test of an ordinary subject's band
 * must not get by chance.
 */
export function freshMobile(): string {
  for (;;) {
    const e164 = `+4479${String(randomInt(10 ** 8)).padStart(8, '0')}`;
    if (parsePhoneNumberFromString(e164)?.getType() === 'MOBILE') return e164;
  }
}
export const freshAddress = () => `2a02:c7c:${hex16()}:${hex16()}:${hex16()}::${hex16()}`;
