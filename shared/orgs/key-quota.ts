import type { RedisClient } from '../clients/redis.ts';
import { activeKeysKey } from './keyspace.ts';

/** Most active (not revoked) API keys an organisation may hold; the Keys page lists them all. */
export const MAX_ACTIVE_KEYS = 100;

/** A reservation with no key record this long after it was made belongs to a create that died. */
const ORPHAN_AFTER_MS = 60_000;

export class KeyLimitError extends Error {
  readonly max: number;
  constructor(max: number) {
    super(`an organisation may hold at most ${max} active keys; revoke one to create another`);
    this.max = max;
  }
}

/** What the quota reads of the keys themselves (the store's records, the truth it repairs from). */
export interface KeyReader {
  /** Ids of the organisation's active keys. */
  activeIds(orgId: string): Promise<string[]>;
  /** Each id's key status, null when it has no record (yet, or any more). */
  statuses(keyIds: string[]): Promise<(string | null)[]>;
}

/**
 * Takes a place if fewer than ARGV[1] are taken. Counting and taking in one script is what makes
 * the limit hold when keys are created in parallel; one key, so it runs on Redis Cluster.
 */
const RESERVE = `
if redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], ARGV[2], ARGV[3])
return 1`;

type ScriptedRedis = RedisClient & {
  frsReserveKey(key: string, max: number, keyId: string, atMs: number): Promise<number>;
};

/**
 * The limit of active keys per organisation: a hash of the organisation's active key ids (each with
 * when its place was taken), a place taken before a key is written and given back when it is
 * revoked. The hash may drift from the records (a key revoked while the hash was being filled, a
 * create that died between its place and its record); when it looks full it is checked against
 * the records once before a create is refused.
 */
export class ActiveKeyQuota {
  private readonly redis: ScriptedRedis;
  readonly max: number;

  constructor(redis: RedisClient, max = MAX_ACTIVE_KEYS) {
    redis.defineCommand('frsReserveKey', { lua: RESERVE, numberOfKeys: 1 });
    this.redis = redis as ScriptedRedis;
    this.max = max;
  }

  /** Takes a place for `keyId` or throws KeyLimitError. */
  async reserve(orgId: string, keyId: string, keys: KeyReader, now = Date.now()): Promise<void> {
    const key = activeKeysKey(orgId);
    // No hash: the organisation's first create since this limit exists, or every key is revoked.
    if ((await this.redis.exists(key)) === 0)
      await Promise.all((await keys.activeIds(orgId)).map((id) => this.redis.hsetnx(key, id, '0')));
    if ((await this.redis.frsReserveKey(key, this.max, keyId, now)) === 1) return;
    if (
      (await this.prune(orgId, keys, now)) > 0 &&
      (await this.redis.frsReserveKey(key, this.max, keyId, now)) === 1
    )
      return;
    throw new KeyLimitError(this.max);
  }

  /** Gives the place of a revoked key (or of a create that failed) back. */
  async release(orgId: string, keyId: string): Promise<void> {
    await this.redis.hdel(activeKeysKey(orgId), keyId);
  }

  /** Drops the places of revoked keys and of creates that died; how many it dropped. */
  private async prune(orgId: string, keys: KeyReader, now: number): Promise<number> {
    const key = activeKeysKey(orgId);
    const held = await this.redis.hgetall(key);
    const ids = Object.keys(held);
    const statuses = await keys.statuses(ids);
    const stale = ids.filter((id, i) =>
      statuses[i] ? statuses[i] !== 'active' : now - Number(held[id]) > ORPHAN_AFTER_MS,
    );
    if (stale.length > 0) await this.redis.hdel(key, ...stale);
    return stale.length;
  }
}
