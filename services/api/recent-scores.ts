import type { Redis } from '../../shared/clients/redis.ts';
import { scoreIdTime } from '../../shared/ids.ts';
import type { Logger } from '../../shared/logger.ts';
import { MAX_PENDING_COPIES } from '../../shared/audit/explain-cache.ts';

/**
 * How long an entry is kept, at least: the audit pipeline's normal lag is about a second (p99
 * under 2 s, docs/data.md), and a score older than this is looked up in ClickHouse; the same 15
 * minutes as the explain copies, so a short Kafka or ClickHouse outage is covered as well.
 */
export const RECENT_TTL_SECONDS = 15 * 60;

/**
 * Entries are grouped in one hash per organisation and minute (by the time in the score id), so
 * a lookup reads one field of one key and the whole minute expires together. An entry lives from
 * RECENT_TTL_SECONDS to RECENT_TTL_SECONDS + one minute.
 */
export const RECENT_BUCKET_MS = 60_000;

/**
 * Every key of one organisation shares the hash tag `{<org_id>}`: one slot in a cluster. The
 * prefix `frs:recent:` is what the cache server's ACL grants the API nodes.
 */
export const recentScoresKey = (orgId: string, bucket: number) => `frs:recent:{${orgId}}:${bucket}`;

/** What an outcome needs of a score: when it was made and its subject. */
export interface ScoredSubject {
  scored_at_ms: number;
  subject: { phone_number?: string; ip_address?: string };
}

export interface RecentScoresOptions {
  ttlSeconds?: number;
  bucketMs?: number;
  /** Commands waiting on the cache connection past which an entry is skipped (see MAX_PENDING_COPIES). */
  maxPending?: number;
}

/**
 * A compact index of every score the node answered 200 in the last minutes, on the cache Redis:
 * score_id -> scored_at and subject (~130 bytes an entry, measured with MEMORY USAGE on Redis 7
 * hashes of 12 000 fields). An outcome about a score made moments ago finds its subject here
 * whatever the explain-copy share let through and whether or not the audit sink has written the
 * row yet. Unlike the explain copies it needs no per-organisation share: each entry is a 200 the
 * rate limit admitted, so an organisation holds at most rate_rps x (TTL + 1 min) entries, at
 * bureau's default 200/s about 192 000 entries, ~25 MB.
 */
/**
 * The entry and its minute's expiry in one command: a key is never left without its expiry (the
 * cache server evicts only keys that have one), and one command instead of HSET plus PEXPIREAT
 * is one client round of encoding, timers and promises less on the scoring path.
 */
const PUT_ENTRY = `redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return redis.call('PEXPIREAT', KEYS[1], ARGV[3])`;

type IndexRedis = Redis & {
  frsRecentPut(key: string, scoreId: string, entry: string, expireAtMs: number): Promise<number>;
};

export class RecentScores {
  private readonly redis: IndexRedis;
  private readonly log: Logger;
  private readonly ttlMs: number;
  private readonly bucketMs: number;
  private readonly maxPending: number;
  /** Entries not written: Redis unreachable, too slow (see MAX_PENDING_COPIES), or an error. */
  skipped = 0;

  constructor(redis: Redis, log: Logger, opts: RecentScoresOptions = {}) {
    redis.defineCommand('frsRecentPut', { lua: PUT_ENTRY, numberOfKeys: 1 });
    this.redis = redis as IndexRedis;
    this.log = log;
    this.ttlMs = (opts.ttlSeconds ?? RECENT_TTL_SECONDS) * 1000;
    this.bucketMs = opts.bucketMs ?? RECENT_BUCKET_MS;
    this.maxPending = opts.maxPending ?? MAX_PENDING_COPIES;
  }

  private bucketOf(ms: number): number {
    return Math.floor(ms / this.bucketMs);
  }

  /**
   * Fire and forget, on the hot path before the durable wait: the script rides the client's
   * auto-pipeline in the same write as the request's other cache commands and reaches Redis while
   * the audit record is still on its way to Kafka, so the entry is there before the 200 leaves
   * in all but a race with a stalled cache server (the outcome's grace poll covers that). The
   * expiry is re-armed by every write, in the same script as the field it covers.
   */
  put(orgId: string, scoreId: string, entry: ScoredSubject): void {
    const pending = this.redis.commandQueue.length + this.redis.autoPipelineQueueSize;
    if (this.redis.status !== 'ready' || pending >= this.maxPending) {
      if (this.skipped++ % 1000 === 0) this.log.warn({ pending }, 'recent score entries skipped');
      return;
    }
    const bucket = this.bucketOf(entry.scored_at_ms);
    const key = recentScoresKey(orgId, bucket);
    const { phone_number = '', ip_address = '' } = entry.subject;
    this.redis
      .frsRecentPut(
        key,
        scoreId,
        `${entry.scored_at_ms}|${phone_number}|${ip_address}`,
        (bucket + 1) * this.bucketMs + this.ttlMs,
      )
      .catch(this.failed);
  }

  /** The error text only: a Redis error never carries the entry, which is personal data. */
  private readonly failed = (err: unknown): void => {
    if (this.skipped++ % 1000 === 0) this.log.warn({ err }, 'recent score entry not written to redis');
  };

  /** The entry of a score of this organisation, or null when absent, expired, or Redis is unavailable. */
  async get(orgId: string, scoreId: string): Promise<ScoredSubject | null> {
    const madeAt = scoreIdTime(scoreId);
    if (madeAt === null) return null;
    let raw: string | null;
    try {
      raw = await this.redis.hget(recentScoresKey(orgId, this.bucketOf(madeAt)), scoreId);
    } catch {
      return null;
    }
    if (!raw) return null;
    const [at, phone, ip] = raw.split('|');
    return {
      scored_at_ms: Number(at),
      subject: { ...(phone ? { phone_number: phone } : {}), ...(ip ? { ip_address: ip } : {}) },
    };
  }
}
