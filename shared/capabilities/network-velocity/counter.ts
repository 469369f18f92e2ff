/**
 * Network velocity's counts, kept off the request path from the score stream (the audit sink's
 * velocity consumer writes them, the refresher reads them into the snapshot). In the ledger Redis:
 *
 *   {prefix}:velocity:<subject digest>   hash (count.lua): first seen, each organisation's latest
 *                                        score (by a 48-bit keyed tag, never its id), and scores per
 *                                        10 minutes, hour and day; expires 31 days after its last score
 *   {prefix}:velocity:hot                sorted set: the digests at least MIN_ORGANISATIONS
 *                                        organisations scored within 30 days, by their last score (ms);
 *                                        trimmed of older ones at most once a minute per counter;
 *                                        expires 31 days after its last addition
 *
 * Exact sets, not HyperLogLog: the decision is made at 3 organisations, where exactness matters
 * most, and almost every subject is scored by one organisation, where a hash of a few fields is
 * smaller than a HyperLogLog's (a sparse Redis HLL alone is tens of bytes per window before the
 * key). An organisation set is bounded by MAX_ORGANISATIONS; counts are exact to the millisecond
 * for organisations and to the bucket (10 minutes, an hour, a day) at a window's edge for scores,
 * which are counted at least once (count.lua: a re-delivery of an organisation's latest score on a
 * subject is recognised, an older one of the same re-delivered batch counts again).
 */
import { readFileSync } from 'node:fs';
import type { RedisClient } from '../../clients/redis.ts';
import type { SubjectKeys } from '../subject-key.ts';
import {
  MAX_ORGANISATIONS,
  MIN_ORGANISATIONS,
  organisationTag,
  velocitySubjects,
  WINDOW_S,
} from './subjects.ts';
import type { VelocityCounts } from './table.ts';

const DAY_MS = 86_400_000;
const MONTH_MS = 30 * DAY_MS;
/** A subject's hash outlives its last score by the widest window and a day. */
const LIFETIME_MS = MONTH_MS + DAY_MS;

export const velocityKey = (prefix: string, digest: string) => `${prefix}:velocity:${digest}`;
export const velocityHotKey = (prefix: string) => `${prefix}:velocity:hot`;

type ScriptedRedis = RedisClient & { frsVelocityCount(key: string, ...args: string[]): Promise<number> };

function scripted(redis: RedisClient): ScriptedRedis {
  const r = redis as ScriptedRedis;
  if (typeof r.frsVelocityCount !== 'function')
    redis.defineCommand('frsVelocityCount', {
      lua: readFileSync(new URL('./count.lua', import.meta.url), 'utf8'),
      numberOfKeys: 1,
    });
  return r;
}

/** What the counter reads of one score record. */
export interface CountedScore {
  orgId: string;
  scoredAtMs: number;
  subject: { phone_number?: string | undefined; ip_address?: string | undefined };
}

export class VelocityCounter {
  private readonly redis: ScriptedRedis;
  private readonly prefix: string;
  private readonly keys: SubjectKeys;
  private readonly excluded: ReadonlySet<string>;
  /** Organisation tags by id: a keyed digest each, and a deployment has few organisations. */
  private readonly tags = new Map<string, string>();
  private trimmedAtMs = 0;

  /** `excluded`: organisations (test or sandbox tenants) whose scores are not counted (VELOCITY_EXCLUDED_ORGS). */
  constructor(
    redis: RedisClient,
    prefix: string,
    keys: SubjectKeys,
    excluded: ReadonlySet<string> = new Set(),
  ) {
    this.redis = scripted(redis);
    this.prefix = prefix;
    this.keys = keys;
    this.excluded = excluded;
  }

  /** Counts a batch of scores; resolves once Redis took all of it (throws while Redis is down). */
  async count(scores: readonly CountedScore[], nowMs: number = Date.now()): Promise<number> {
    const writes: Promise<unknown>[] = [];
    const hot = new Map<string, number>();
    for (const s of scores) {
      if (this.excluded.has(s.orgId)) continue;
      const tag = this.tagOf(s.orgId);
      for (const { canonical } of velocitySubjects(s.subject)) {
        const digest = this.keys.key(canonical);
        writes.push(
          this.redis
            .frsVelocityCount(
              velocityKey(this.prefix, digest),
              tag,
              String(s.scoredAtMs),
              String(nowMs),
              String(MAX_ORGANISATIONS),
              String(LIFETIME_MS),
            )
            .then((orgs) => {
              if (orgs >= MIN_ORGANISATIONS) hot.set(digest, Math.max(hot.get(digest) ?? 0, s.scoredAtMs));
            }),
        );
      }
    }
    await Promise.all(writes);
    if (hot.size > 0) {
      const args = [...hot].flatMap(([digest, ms]) => [ms, digest] as const);
      await this.redis.zadd(velocityHotKey(this.prefix), 'GT', ...args);
      // Like every subject's hash: gone a month and a day after its last hot subject.
      await this.redis.pexpire(velocityHotKey(this.prefix), LIFETIME_MS);
    }
    // The refresher reads the hot set by score, so what is older than a month only costs memory
    // until trimmed: once a minute is plenty.
    if (nowMs - this.trimmedAtMs >= 60_000) {
      await this.redis.zremrangebyscore(velocityHotKey(this.prefix), '-inf', nowMs - MONTH_MS);
      this.trimmedAtMs = nowMs;
    }
    return writes.length;
  }

  private tagOf(orgId: string): string {
    let tag = this.tags.get(orgId);
    if (tag === undefined) {
      if (this.tags.size >= 100_000) this.tags.clear();
      tag = organisationTag(this.keys, orgId);
      this.tags.set(orgId, tag);
    }
    return tag;
  }
}

/** One subject's counts at `nowMs` from its hash (pure: the rule the snapshot and the tests read). */
export function countsOf(
  digest: string,
  fields: Readonly<Record<string, string>>,
  nowMs: number,
): VelocityCounts {
  const orgs: [number, number, number] = [0, 0, 0];
  const scores: [number, number, number] = [0, 0, 0];
  const windows = [WINDOW_S['1h'] * 1000, WINDOW_S['24h'] * 1000, WINDOW_S['30d'] * 1000] as const;
  // The score buckets each window is read from: a bucket counts when any of it is inside the window.
  const sizes: Record<string, [number, number]> = {
    'm:': [600_000, 0],
    'h:': [3_600_000, 1],
    'd:': [DAY_MS, 2],
  };
  for (const [field, value] of Object.entries(fields)) {
    const kind = field.slice(0, 2);
    if (kind === 'o:') {
      const last = Number(value);
      for (let w = 0; w < 3; w++) if (last >= nowMs - windows[w]!) orgs[w]!++;
    } else if (sizes[kind]) {
      const [size, w] = sizes[kind];
      if ((Number(field.slice(2)) + 1) * size > nowMs - windows[w]!) scores[w] = scores[w]! + Number(value);
    }
  }
  return { digest, organisations: orgs, scores, firstSeenS: Number(fields.f ?? 0) };
}

/** One subject's counts now, by its digest (tests, the memory measurement). */
export async function readCounts(
  redis: RedisClient,
  prefix: string,
  digest: string,
  nowMs: number = Date.now(),
): Promise<VelocityCounts> {
  return countsOf(digest, await redis.hgetall(velocityKey(prefix, digest)), nowMs);
}

/**
 * The counts of every subject past the threshold within 30 days: what the refresher builds the
 * snapshot from. Bounded by the hot set, never a scan of the counters.
 */
export async function collectHot(
  redis: RedisClient,
  prefix: string,
  nowMs: number,
): Promise<VelocityCounts[]> {
  const digests = await redis.zrangebyscore(velocityHotKey(prefix), nowMs - MONTH_MS, '+inf');
  const out: VelocityCounts[] = [];
  for (let i = 0; i < digests.length; i += 500) {
    const batch = digests.slice(i, i + 500);
    const hashes = await Promise.all(batch.map((d) => redis.hgetall(velocityKey(prefix, d))));
    batch.forEach((d, j) => out.push(countsOf(d, hashes[j]!, nowMs)));
  }
  return out;
}
