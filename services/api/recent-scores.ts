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
 * A minute's entries of one event-loop turn and the minute's expiry in one command: a key is
 * never left without its expiry (the cache server evicts only keys that have one), and a turn's
 * scores of one organisation cost one command, not one each. ARGV: the expiry, then field and
 * value pairs.
 */
const PUT_ENTRIES = `redis.call('HSET', KEYS[1], unpack(ARGV, 2))
return redis.call('PEXPIREAT', KEYS[1], ARGV[1])`;

/** Entries per command at most: Lua's unpack takes a few thousand values; a turn rarely has this many. */
const MAX_ENTRIES_PER_PUT = 500;

type IndexRedis = Redis & {
  frsRecentPut(key: string, expireAtMs: number, ...fieldsAndValues: string[]): Promise<number>;
};

/** The entries of one key waiting for the end of the current turn. */
interface Batch {
  expireAtMs: number;
  fieldsAndValues: string[];
}

export class RecentScores {
  private readonly redis: IndexRedis;
  private readonly log: Logger;
  private readonly ttlMs: number;
  private readonly bucketMs: number;
  private readonly maxPending: number;
  /** Entries not written: Redis unreachable, too slow (see MAX_PENDING_COPIES), or an error. */
  skipped = 0;
  /** This turn's entries by key, written together once the turn's code has run. */
  private batches = new Map<string, Batch>();

  constructor(redis: Redis, log: Logger, opts: RecentScoresOptions = {}) {
    redis.defineCommand('frsRecentPut', { lua: PUT_ENTRIES, numberOfKeys: 1 });
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
   * Fire and forget, on the hot path before the durable wait. The entry joins its key's batch of
   * this turn; the batch is sent from `process.nextTick`, after every request this turn's Redis
   * replies resumed, and before the client's auto-pipeline writes the turn's commands (at
   * setImmediate). So it still rides the same write as the request's other cache commands and
   * reaches Redis while the audit record is on its way to Kafka: the entry is there before the
   * 200 leaves in all but a race with a stalled cache server (the outcome's grace poll covers
   * that). The expiry is re-armed by every write, in the same script as the fields it covers.
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
    if (this.batches.size === 0) process.nextTick(this.flush);
    let batch = this.batches.get(key);
    if (batch === undefined) {
      batch = { expireAtMs: (bucket + 1) * this.bucketMs + this.ttlMs, fieldsAndValues: [] };
      this.batches.set(key, batch);
    }
    batch.fieldsAndValues.push(scoreId, `${entry.scored_at_ms}|${phone_number}|${ip_address}`);
    if (batch.fieldsAndValues.length >= 2 * MAX_ENTRIES_PER_PUT) {
      this.batches.delete(key);
      this.send(key, batch);
    }
  }

  private readonly flush = (): void => {
    const batches = this.batches;
    if (batches.size === 0) return;
    this.batches = new Map();
    for (const [key, batch] of batches) this.send(key, batch);
  };

  private send(key: string, batch: Batch): void {
    const entries = batch.fieldsAndValues.length / 2;
    this.redis
      .frsRecentPut(key, batch.expireAtMs, ...batch.fieldsAndValues)
      .catch((err: unknown) => this.failed(err, entries));
  }

  /** The error text only: a Redis error never carries the entry, which is personal data. */
  private failed(err: unknown, entries: number): void {
    const before = this.skipped;
    this.skipped += entries;
    if (Math.floor(before / 1000) !== Math.floor(this.skipped / 1000) || before === 0)
      this.log.warn({ err, entries }, 'recent score entries not written to redis');
  }

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
