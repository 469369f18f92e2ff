import type { Redis } from 'ioredis';
import { z } from 'zod';
import { Context } from '../contract/request.ts';
import { TIERS, type Tier } from '../contract/response.ts';
import { generateApiKey, keyDigest, newId } from './keys.ts';

/** Default per-second rates by tier (decisions.md); an organisation may override its own. */
export const DEFAULT_RATE_RPS: Record<Tier, number> = { verify: 10, assess: 50, bureau: 200 };
export const DEFAULT_MONTHLY_CREDITS = 100_000;
export const DEFAULT_OVERDRAFT_RATIO = 0.05;

export const Org = z.object({
  org_id: z.string(),
  name: z.string(),
  tier: z.enum(TIERS),
  rate_rps: z.coerce.number().int().positive(),
  credits: z.coerce.number().int().nonnegative(),
  overdraft: z.coerce.number().int().nonnegative(),
  created_at: z.string(),
});
export type Org = z.infer<typeof Org>;

export const KeyRecord = z.object({
  key_id: z.string(),
  org_id: z.string(),
  status: z.enum(['active', 'revoked']),
  created_at: z.string(),
});
export type KeyRecord = z.infer<typeof KeyRecord>;

const orgKey = (orgId: string) => `frs:org:${orgId}`;
const orgKeysKey = (orgId: string) => `frs:org:${orgId}:keys`;
const digestKey = (digest: string) => `frs:apikey:${digest}`;
const keyIdKey = (keyId: string) => `frs:keyid:${keyId}`;
const contextKey = (orgId: string, contextId: string) => `frs:org:${orgId}:context:${contextId}`;

export interface CreateOrgInput {
  name: string;
  tier: Tier;
  rateRps?: number;
  credits?: number;
  overdraft?: number;
}

/** Organisations and API keys in Redis. Keys are stored only as SHA-256 digests. */
export class OrgStore {
  private readonly redis: Redis;

  constructor(redis: Redis) {
    this.redis = redis;
  }

  async createOrg(input: CreateOrgInput): Promise<Org> {
    const credits = input.credits ?? DEFAULT_MONTHLY_CREDITS;
    const org: Org = {
      org_id: newId('org'),
      name: input.name,
      tier: input.tier,
      rate_rps: input.rateRps ?? DEFAULT_RATE_RPS[input.tier],
      credits,
      overdraft: input.overdraft ?? Math.floor(credits * DEFAULT_OVERDRAFT_RATIO),
      created_at: new Date().toISOString(),
    };
    await this.redis.hset(orgKey(org.org_id), org);
    return org;
  }

  async getOrg(orgId: string): Promise<Org | null> {
    const h = await this.redis.hgetall(orgKey(orgId));
    return Object.keys(h).length === 0 ? null : Org.parse(h);
  }

  /** Creates a key for an existing organisation; the clear key is returned this once only. */
  async createKey(orgId: string): Promise<{ key_id: string; api_key: string }> {
    if (!(await this.getOrg(orgId))) throw new Error(`unknown organisation ${orgId}`);
    const apiKey = generateApiKey();
    const digest = keyDigest(apiKey);
    const rec: KeyRecord = {
      key_id: newId('key'),
      org_id: orgId,
      status: 'active',
      created_at: new Date().toISOString(),
    };
    await this.redis
      .multi()
      .hset(digestKey(digest), rec)
      .set(keyIdKey(rec.key_id), digest)
      .sadd(orgKeysKey(orgId), rec.key_id)
      .exec();
    return { key_id: rec.key_id, api_key: apiKey };
  }

  async listKeys(orgId: string): Promise<KeyRecord[]> {
    const ids = await this.redis.smembers(orgKeysKey(orgId));
    const out: KeyRecord[] = [];
    for (const id of ids.sort()) {
      const digest = await this.redis.get(keyIdKey(id));
      if (!digest) continue;
      const h = await this.redis.hgetall(digestKey(digest));
      if (Object.keys(h).length > 0) out.push(KeyRecord.parse(h));
    }
    return out;
  }

  async revokeKey(keyId: string): Promise<boolean> {
    const digest = await this.redis.get(keyIdKey(keyId));
    if (!digest) return false;
    await this.redis.hset(digestKey(digest), 'status', 'revoked');
    return true;
  }

  /** The active key record and its organisation for a key digest, or null. */
  async resolveDigest(digest: string): Promise<{ key: KeyRecord; org: Org } | null> {
    const h = await this.redis.hgetall(digestKey(digest));
    if (Object.keys(h).length === 0) return null;
    const key = KeyRecord.parse(h);
    if (key.status !== 'active') return null;
    const org = await this.getOrg(key.org_id);
    return org ? { key, org } : null;
  }

  resolveKey(apiKey: string) {
    return this.resolveDigest(keyDigest(apiKey));
  }

  /** Saves (or replaces) a named scoring context of an organisation; validated like an inline one. */
  async saveContext(orgId: string, contextId: string, context: unknown): Promise<Context> {
    if (!(await this.getOrg(orgId))) throw new Error(`unknown organisation ${orgId}`);
    const parsed = Context.parse(context);
    await this.redis.set(contextKey(orgId, contextId), JSON.stringify(parsed));
    return parsed;
  }

  async getContext(orgId: string, contextId: string): Promise<Context | null> {
    const json = await this.redis.get(contextKey(orgId, contextId));
    return json === null ? null : Context.parse(JSON.parse(json));
  }
}
