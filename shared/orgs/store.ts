import type { RedisClient } from '../clients/redis.ts';
import { z } from 'zod';
import { Context } from '../contract/request.ts';
import { storableText } from '../contract/storable-text.ts';
import { TIERS, type Tier } from '../vocabulary/score-terms.ts';
import { TIER_INCLUSION } from '../scoring/tiers.ts';
import { ActiveKeyQuota, type KeyReader } from './key-quota.ts';
import { generateApiKey, keyDigest, keyHint, newId } from './keys.ts';
import {
  creditPeriod,
  creditsKey,
  digestKey,
  DIGEST_INDEX_COMPLETE_KEY,
  DIGEST_INDEX_KEY,
  DIGEST_KEY_PATTERN,
  KEYS_REVOKED_CHANNEL,
  keyIdKey,
  keysLastUsedKey,
  orgKey,
  orgKeysKey,
  ORGS_CHANGED_CHANNEL,
} from './keyspace.ts';

/** Default per-second rates by tier (docs/contract.md "Limits and billing"); an organisation may override its own. */
export const DEFAULT_RATE_RPS: Record<Tier, number> = { verify: 10, assess: 50, bureau: 200 };
export const DEFAULT_MONTHLY_CREDITS = 100_000;
export const DEFAULT_OVERDRAFT_RATIO = 0.05;

/** Everything a tier can include (component keys and response-field paths). */
export const ENTITLEMENT_ITEMS: readonly string[] = Object.values(TIER_INCLUSION).flat();
export const MAX_SAVED_CONTEXTS = 100;
/** An organisation's display name: shown in the portal and logs, so storable text like any input. */
export const ORG_NAME = storableText({ min: 1, max: 128 });
export const CONTEXT_ID = z
  .string()
  .regex(/^[A-Za-z0-9._:-]{1,128}$/, 'expected 1-128 of A-Z a-z 0-9 . _ : -');

/** A hash field holding JSON (Redis hashes are flat strings). */
const json = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => {
    if (typeof v !== 'string') return v;
    try {
      return JSON.parse(v);
    } catch {
      return v;
    }
  }, schema);

export const Org = z.object({
  org_id: z.string(),
  name: z.string(),
  tier: z.enum(TIERS),
  rate_rps: z.coerce.number().int().positive(),
  credits: z.coerce.number().int().nonnegative(),
  overdraft: z.coerce.number().int().nonnegative(),
  /** Items included for this organisation beyond its tier's defaults (docs/contract.md "Tiers"). */
  entitlements: json(z.array(z.enum(ENTITLEMENT_ITEMS as [string, ...string[]])).default([])),
  /** Contexts saved for `context_id`, travelling with the organisation so scoring reads no Redis. */
  contexts: json(z.record(CONTEXT_ID, Context).default({})),
  /**
   * Live phone lookups this organisation opted into per calendar month (UTC); absent or 0: none
   * (shared/capabilities/phone-live-lookup, docs/capabilities.md "Live phone lookups").
   */
  phone_lookup_cap: z.coerce.number().int().nonnegative().optional(),
  created_at: z.string(),
});
export type Org = z.infer<typeof Org>;

function orgHash(org: Org): Record<string, string | number> {
  return { ...org, entitlements: JSON.stringify(org.entitlements), contexts: JSON.stringify(org.contexts) };
}

/** A key's label: what the portal's Keys page shows next to it. Printable text, at most 64 chars. */
export const KEY_LABEL = z
  .string()
  .trim()
  .max(64, 'at most 64 characters')
  .regex(/^[^\p{C}]*$/u, 'control and format characters are not allowed');

export const KeyRecord = z.object({
  key_id: z.string(),
  org_id: z.string(),
  status: z.enum(['active', 'revoked']),
  created_at: z.string(),
  /** Keys made before labels and hints existed have neither. */
  label: z.string().default(''),
  /** The first KEY_HINT_CHARS characters after the prefix, so staff can tell keys apart. */
  hint: z.string().default(''),
  /**
   * A rolled key's end (epoch ms): from then on every API node refuses it, from its replica and
   * without asking Redis, even before the revocation that follows it is published.
   */
  expires_at: z.coerce.number().int().optional(),
});
export type KeyRecord = z.infer<typeof KeyRecord>;

/** Whether a key authenticates at `now`: active and not past the end of a roll's overlap. */
export const keyIsLive = (key: KeyRecord, now = Date.now()) =>
  key.status === 'active' && (key.expires_at === undefined || now < key.expires_at);

/** Longest overlap a rolled key may keep working beside its successor. */
export const MAX_ROLL_OVERLAP_MS = 7 * 24 * 3600 * 1000;

export interface CreateOrgInput {
  name: string;
  tier: Tier;
  rateRps?: number;
  credits?: number;
  overdraft?: number;
}

export type OrgUpdate = Partial<
  Pick<Org, 'tier' | 'rate_rps' | 'credits' | 'overdraft' | 'entitlements' | 'phone_lookup_cap'>
>;

/** An active key's record with its organisation, as the API's key cache holds it. */
export interface ResolvedKey {
  digest: string;
  key: KeyRecord;
  org: Org;
}

/** Organisations and API keys in Redis. Keys are stored only as SHA-256 digests. */
export class OrgStore {
  private readonly redis: RedisClient;
  /** At most MAX_ACTIVE_KEYS active keys per organisation, for the portal and the admin CLI alike. */
  readonly quota: ActiveKeyQuota;
  private readonly keyReader: KeyReader = {
    activeIds: async (orgId) =>
      (await this.listKeys(orgId)).filter((k) => k.status === 'active').map((k) => k.key_id),
    statuses: (keyIds) => Promise.all(keyIds.map(async (id) => (await this.getKey(id))?.status ?? null)),
  };

  constructor(redis: RedisClient) {
    this.redis = redis;
    this.quota = new ActiveKeyQuota(redis);
  }

  async createOrg(input: CreateOrgInput): Promise<Org> {
    const credits = input.credits ?? DEFAULT_MONTHLY_CREDITS;
    const org: Org = {
      org_id: newId('org'),
      name: ORG_NAME.parse(input.name),
      tier: input.tier,
      rate_rps: input.rateRps ?? DEFAULT_RATE_RPS[input.tier],
      credits,
      overdraft: input.overdraft ?? Math.floor(credits * DEFAULT_OVERDRAFT_RATIO),
      entitlements: [],
      contexts: {},
      created_at: new Date().toISOString(),
    };
    await this.redis.hset(orgKey(org.org_id), orgHash(org));
    return org;
  }

  /** Changes limits or tier of an organisation and tells every API node to re-read it. */
  async updateOrg(orgId: string, update: OrgUpdate): Promise<Org | null> {
    const current = await this.getOrg(orgId);
    if (!current) return null;
    return this.write(Org.parse({ ...current, ...update }));
  }

  /** Saves (or replaces) a context an organisation's requests can name with `context_id`. */
  async saveContext(orgId: string, contextId: string, context: Context): Promise<Org | null> {
    const current = await this.getOrg(orgId);
    if (!current) return null;
    const contexts = { ...current.contexts, [CONTEXT_ID.parse(contextId)]: Context.parse(context) };
    if (Object.keys(contexts).length > MAX_SAVED_CONTEXTS)
      throw new Error(`an organisation keeps at most ${MAX_SAVED_CONTEXTS} saved contexts`);
    return this.write({ ...current, contexts });
  }

  async deleteContext(orgId: string, contextId: string): Promise<boolean> {
    const current = await this.getOrg(orgId);
    if (!current || !(contextId in current.contexts)) return false;
    const { [contextId]: _gone, ...contexts } = current.contexts;
    await this.write({ ...current, contexts });
    return true;
  }

  /** Stores the organisation and tells every API node to re-read it. */
  private async write(org: Org): Promise<Org> {
    await this.redis
      .multi()
      .hset(orgKey(org.org_id), orgHash(org))
      .publish(ORGS_CHANGED_CHANNEL, org.org_id)
      .exec();
    return org;
  }

  /** Credits billed to an organisation in the UTC month of `nowMs`. */
  async creditsUsed(orgId: string, nowMs = Date.now()): Promise<{ period: string; used: number }> {
    const period = creditPeriod(nowMs);
    const used = Number((await this.redis.get(creditsKey(orgId, period))) ?? 0);
    return { period, used };
  }

  async getOrg(orgId: string): Promise<Org | null> {
    const h = await this.redis.hgetall(orgKey(orgId));
    return Object.keys(h).length === 0 ? null : Org.parse(h);
  }

  /**
   * Creates a key for an existing organisation; the clear key is returned this once only. Throws
   * KeyLimitError when the organisation already holds MAX_ACTIVE_KEYS active keys.
   */
  async createKey(orgId: string, label = ''): Promise<{ key_id: string; api_key: string }> {
    if (!(await this.getOrg(orgId))) throw new Error(`unknown organisation ${orgId}`);
    const apiKey = generateApiKey();
    const digest = keyDigest(apiKey);
    const rec: KeyRecord = {
      key_id: newId('key'),
      org_id: orgId,
      status: 'active',
      created_at: new Date().toISOString(),
      label: KEY_LABEL.parse(label),
      hint: keyHint(apiKey),
    };
    await this.quota.reserve(orgId, rec.key_id, this.keyReader);
    // One key per write, in an order where a create that dies half-way leaves nothing usable: the
    // organisation's set and the id -> digest link point at a record that does not exist yet
    // (listKeys and getKey skip it, the quota frees its place after ORPHAN_AFTER_MS); the record
    // makes the key live; the index tells API nodes about it. The record is found by the key's
    // digest alone, so it cannot share the organisation's hash slot (docs/scale-out.md).
    try {
      await this.redis.sadd(orgKeysKey(orgId), rec.key_id);
      await this.redis.set(keyIdKey(rec.key_id), digest);
      await this.redis.hset(digestKey(digest), rec);
      await this.redis.hset(DIGEST_INDEX_KEY, digest, rec.key_id);
    } catch (err) {
      await this.quota.release(orgId, rec.key_id).catch(() => undefined);
      throw err;
    }
    return { key_id: rec.key_id, api_key: apiKey };
  }

  /** Every key of the organisation, revoked ones included; read in parallel (pipelined). */
  async listKeys(orgId: string): Promise<KeyRecord[]> {
    const ids = (await this.redis.smembers(orgKeysKey(orgId))).sort();
    const records = await Promise.all(ids.map((id) => this.getKey(id)));
    return records.filter((k): k is KeyRecord => k !== null);
  }

  /** One key's record by its id, or null. */
  async getKey(keyId: string): Promise<KeyRecord | null> {
    const digest = await this.redis.get(keyIdKey(keyId));
    if (!digest) return null;
    const h = await this.redis.hgetall(digestKey(digest));
    return Object.keys(h).length === 0 ? null : KeyRecord.parse(h);
  }

  /** When each key of an organisation last authenticated (epoch ms), as API nodes flush it. */
  async keysLastUsed(orgId: string): Promise<Map<string, number>> {
    const flat = await this.redis.zrange(keysLastUsedKey(orgId), '0', '-1', 'WITHSCORES');
    const out = new Map<string, number>();
    for (let i = 0; i < flat.length; i += 2) out.set(flat[i]!, Number(flat[i + 1]));
    return out;
  }

  async revokeKey(keyId: string): Promise<boolean> {
    const digest = await this.redis.get(keyIdKey(keyId));
    if (!digest) return false;
    // The publish tells every API node to drop the key from its cache within a second.
    await this.redis
      .multi()
      .hset(digestKey(digest), 'status', 'revoked')
      .publish(KEYS_REVOKED_CHANNEL, digest)
      .exec();
    const orgId = await this.redis.hget(digestKey(digest), 'org_id');
    if (orgId) await this.quota.release(orgId, keyId);
    await this.redis.hdel(DIGEST_INDEX_KEY, digest);
    return true;
  }

  /**
   * Rolls a key: a new key with the same label now, and the old one ends `overlapMs` later (its
   * `expires_at`, which every API node honours). The caller revokes the old key at that time
   * (the revocation returns its quota place and is published); the new key is shown once.
   */
  async rollKey(
    keyId: string,
    overlapMs: number,
    now = Date.now(),
  ): Promise<{ key_id: string; api_key: string; expires_at: number } | null> {
    const old = await this.getKey(keyId);
    if (!old || !keyIsLive(old, now)) return null;
    const overlap = Math.min(Math.max(0, Math.floor(overlapMs)), MAX_ROLL_OVERLAP_MS);
    const created = await this.createKey(old.org_id, old.label);
    const expiresAt = now + overlap;
    const digest = await this.redis.get(keyIdKey(keyId));
    // An earlier end already set (a second roll of the same key) is kept.
    if (digest) {
      if (old.expires_at === undefined || expiresAt < old.expires_at)
        await this.redis.hset(digestKey(digest), 'expires_at', expiresAt);
    }
    return { ...created, expires_at: Math.min(expiresAt, old.expires_at ?? expiresAt) };
  }

  /** The active key record and its organisation for a key digest, or null. */
  async resolveDigest(digest: string): Promise<{ key: KeyRecord; org: Org } | null> {
    const h = await this.redis.hgetall(digestKey(digest));
    if (Object.keys(h).length === 0) return null;
    const key = KeyRecord.parse(h);
    if (!keyIsLive(key)) return null;
    const org = await this.getOrg(key.org_id);
    return org ? { key, org } : null;
  }

  /**
   * Every active key with its organisation: what an API node loads at boot and after its pub/sub
   * connection drops, so it can still tell known keys from unknown ones while Redis is down.
   */
  async activeKeys(): Promise<ResolvedKey[]> {
    const digests =
      (await this.redis.get(DIGEST_INDEX_COMPLETE_KEY)) === '1'
        ? Object.keys(await this.redis.hgetall(DIGEST_INDEX_KEY))
        : await this.scanDigests().catch((err: unknown) => {
            // The services' Redis users may not SCAN (it lists every key name on the server).
            if (!/NOPERM/.test(String(err))) throw err;
            throw new Error(
              'the key digest index is not complete and this Redis user may not SCAN: run `admin key index` once',
              { cause: err },
            );
          });
    const records = await Promise.all(digests.map((d) => this.redis.hgetall(digestKey(d))));
    const active = new Map<string, KeyRecord>();
    records.forEach((h, i) => {
      const rec = KeyRecord.safeParse(h);
      if (rec.success && keyIsLive(rec.data)) active.set(digests[i]!, rec.data);
    });
    const orgIds = [...new Set([...active.values()].map((k) => k.org_id))];
    const orgs = new Map<string, Org>();
    for (const [i, h] of (await Promise.all(orgIds.map((id) => this.redis.hgetall(orgKey(id))))).entries()) {
      const org = Org.safeParse(h);
      if (org.success) orgs.set(orgIds[i]!, org.data);
    }
    const out: ResolvedKey[] = [];
    for (const [digest, key] of active) {
      const org = orgs.get(key.org_id);
      if (org) out.push({ digest, key, org });
    }
    return out;
  }

  /**
   * Adds every existing key digest to the index and marks it complete: run once on data written
   * before the index existed (`admin keys index`, and `npm start`); keys created since are in it
   * already. Idempotent. Returns how many digests the index holds.
   */
  async indexKeys(): Promise<number> {
    const digests = await this.scanDigests();
    const ids = await Promise.all(digests.map((d) => this.redis.hget(digestKey(d), 'key_id')));
    const fields = digests.flatMap((d, i) => (ids[i] ? [d, ids[i]] : []));
    for (let i = 0; i < fields.length; i += 2000)
      await this.redis.hset(DIGEST_INDEX_KEY, ...fields.slice(i, i + 2000));
    await this.redis.set(DIGEST_INDEX_COMPLETE_KEY, '1');
    return this.redis.hlen(DIGEST_INDEX_KEY);
  }

  /** Key digests by SCAN, of every primary on a cluster: what the index replaces. */
  private async scanDigests(): Promise<string[]> {
    const digests: string[] = [];
    const servers = 'nodes' in this.redis ? this.redis.nodes('master') : [this.redis];
    for (const server of servers) {
      let cursor = '0';
      do {
        const [next, batch] = await server.scan(cursor, 'MATCH', DIGEST_KEY_PATTERN, 'COUNT', 1000);
        cursor = next;
        for (const k of batch) {
          const digest = k.slice(DIGEST_KEY_PATTERN.length - 1);
          if (/^[0-9a-f]{64}$/.test(digest)) digests.push(digest);
        }
      } while (cursor !== '0');
    }
    return digests;
  }

  resolveKey(apiKey: string) {
    return this.resolveDigest(keyDigest(apiKey));
  }
}
