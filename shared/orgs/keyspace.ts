/**
 * Every Redis key and channel of organisations, keys and the per-request controls, in one place.
 * Per-organisation control keys carry the org id as a hash tag (`{org_...}`), so the one Lua
 * script that touches rate, credits and idempotency of an organisation stays on one slot if the
 * deployment moves to Redis Cluster.
 */
export const orgKey = (orgId: string) => `frs:org:${orgId}`;
export const orgKeysKey = (orgId: string) => `frs:org:${orgId}:keys`;
export const digestKey = (digest: string) => `frs:apikey:${digest}`;
export const DIGEST_KEY_PATTERN = 'frs:apikey:*';
export const keyIdKey = (keyId: string) => `frs:keyid:${keyId}`;
/** Sorted set of an organisation's key ids scored by last use (epoch ms); API nodes flush it. */
export const keysLastUsedKey = (orgId: string) => `frs:org:${orgId}:keys:used`;

/** Fixed one-second window of an organisation, named by the whole epoch second. */
export const rateKey = (orgId: string, epochSecond: number) => `frs:rl:{${orgId}}:${epochSecond}`;
/** Credits used by an organisation in one UTC calendar month (`YYYY-MM`). */
export const creditsKey = (orgId: string, period: string) => `frs:credits:{${orgId}}:${period}`;
/** An Idempotency-Key of an organisation, by the SHA-256 of the key so any header value is safe. */
export const idempotencyKey = (orgId: string, keyHash: string) => `frs:idem:{${orgId}}:${keyHash}`;

/** A revoked key's digest is published here; every API node drops it from its key cache. */
export const KEYS_REVOKED_CHANNEL = 'frs:keys:revoked';
/** An updated organisation's id is published here; nodes re-read it (tier, rate, credits). */
export const ORGS_CHANGED_CHANNEL = 'frs:orgs:changed';

/** The billing period of an instant: its UTC calendar month. */
export function creditPeriod(nowMs: number): string {
  return new Date(nowMs).toISOString().slice(0, 7);
}

/**
 * How long a month's credit counter is kept: to the end of the month plus 35 days, so `org show`
 * and reconciliation can still read last month's usage early in the next one.
 */
export function creditsTtlSeconds(nowMs: number): number {
  const d = new Date(nowMs);
  const nextMonth = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
  return Math.ceil((nextMonth - nowMs) / 1000) + 35 * 86_400;
}
