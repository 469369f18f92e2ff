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
/**
 * Hash of every key's digest -> its key id (revoked keys leave it): what an API node's key replica
 * loads, instead of a SCAN over `frs:apikey:*`, which on a cluster would cover one node only. A
 * hash, not a set: HGETALL and HSET/HDEL are commands the services' ACL users have already.
 */
export const DIGEST_INDEX_KEY = 'frs:apikey:index';
/**
 * Set once the index holds every digest that existed before it (OrgStore.indexKeys); until then
 * a reader scans, which only the admin CLI's Redis user may (the API then refuses to start).
 */
export const DIGEST_INDEX_COMPLETE_KEY = 'frs:apikey:indexed';
export const keyIdKey = (keyId: string) => `frs:keyid:${keyId}`;
/**
 * Hash of an organisation's active key ids (each with when its place was taken, epoch ms): what the
 * limit of active keys counts (key-quota.ts). Permanent, like the keys it counts.
 */
export const activeKeysKey = (orgId: string) => `frs:org:${orgId}:keys:active`;
/** Sorted set of an organisation's key ids scored by last use (epoch ms); API nodes flush it. */
export const keysLastUsedKey = (orgId: string) => `frs:org:${orgId}:keys:used`;

/**
 * What a request is admitted for: each scope has rate windows and Idempotency-Keys of its own, so
 * reporting outcomes or managing lists never takes a scoring slot (nor replays a scoring answer).
 * Only scoring is billed.
 */
export type ControlScope = 'score' | 'outcomes' | 'lists';
const scoped = (scope: ControlScope) => (scope === 'score' ? '' : `${scope}:`);

/** Fixed one-second window of an organisation, named by the whole epoch second. */
export const rateKey = (orgId: string, epochSecond: number, scope: ControlScope = 'score') =>
  `frs:rl:{${orgId}}:${scoped(scope)}${epochSecond}`;
/** Credits used by an organisation in one UTC calendar month (`YYYY-MM`). */
export const creditsKey = (orgId: string, period: string) => `frs:credits:{${orgId}}:${period}`;
/** An Idempotency-Key of an organisation, by the SHA-256 of the key so any header value is safe. */
export const idempotencyKey = (orgId: string, keyHash: string, scope: ControlScope = 'score') =>
  `frs:idem:{${orgId}}:${scoped(scope)}${keyHash}`;

/** A revoked key's digest is published here; every API node drops it from its key cache. */
export const KEYS_REVOKED_CHANNEL = 'frs:keys:revoked';
/** An updated organisation's id is published here; nodes re-read it (tier, rate, credits). */
export const ORGS_CHANGED_CHANNEL = 'frs:orgs:changed';

/**
 * An organisation's allow/deny lists (shared/orgs/lists-store.ts): the entries (hash: entry id ->
 * JSON entry), their version counter, the audit outbox (stream) and a replace's temporary hash,
 * all under the org id's hash tag, so one script changes them together on Redis Cluster too.
 */
export const listKey = (orgId: string) => `frs:list:{${orgId}}`;
export const listVersionKey = (orgId: string) => `frs:list:{${orgId}}:version`;
export const listOutboxKey = (orgId: string) => `frs:list:{${orgId}}:outbox`;
export const listTempKey = (orgId: string, token: string) => `frs:list:{${orgId}}:tmp:${token}`;
/** Set of the organisations that ever held lists: what nodes and the audit sink read instead of a SCAN. */
export const LISTS_INDEX_KEY = 'frs:lists:orgs';
/** A changed organisation's id is published here; every API node reloads its lists. */
export const LISTS_CHANGED_CHANNEL = 'frs:lists:changed';

/** The billing period of an instant: its UTC calendar month. */
export function creditPeriod(nowMs: number): string {
  // Every admission asks; the month is formatted once and kept until the instant leaves it.
  if (nowMs < period.from || nowMs >= period.to) {
    const d = new Date(nowMs);
    period = {
      from: Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1),
      to: Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1),
      name: d.toISOString().slice(0, 7),
    };
  }
  return period.name;
}
let period = { from: 0, to: 0, name: '' };

/**
 * How long a month's credit counter is kept: to the end of the month plus 35 days, so `org show`
 * and reconciliation can still read last month's usage early in the next one.
 */
export function creditsTtlSeconds(nowMs: number): number {
  const d = new Date(nowMs);
  const nextMonth = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
  return Math.ceil((nextMonth - nowMs) / 1000) + 35 * 86_400;
}
