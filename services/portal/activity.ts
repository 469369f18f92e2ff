import { createHash } from 'node:crypto';
import type { RedisClient } from '../../shared/clients/redis.ts';
import { FEED_ALIVE_KEY, RECENT_MAX, utcDay, type ScoreSummary } from '../../shared/portal/activity.ts';
import { dailyUsageKey, recentScoresKey, recentSeqKey } from '../../shared/portal/keyspace.ts';
import { usedKey } from '../../shared/capabilities/phone-live-lookup/cache.ts';

/** Rows the page shows. */
export const ACTIVITY_ROWS = 100;

/** What ActivityStore.read answers. */
export interface RecentScores {
  seq: number;
  full: boolean;
  scores: ScoreSummary[];
}

/**
 * KEYS: the list, its push count. ARGV: the count the page has seen (-1: none), RECENT_MAX.
 * Reads the count and the entries pushed since in one step, so no push falls between the two.
 * Run with EVALSHA_RO: the portal's user may only read these keys, and Redis holds EVAL to write
 * permission on every key it names. The shebang declares the script read-only, which _RO needs.
 */
const SINCE = `#!lua flags=no-writes
local now = tonumber(redis.call('GET', KEYS[2]) or '0')
local seen = tonumber(ARGV[1])
local max = tonumber(ARGV[2])
local n = now - seen
local full = 0
if seen < 0 or n < 0 or n > max then
  n = max
  full = 1
end
if n == 0 then return {now, full, {}} end
return {now, full, redis.call('LRANGE', KEYS[1], 0, n - 1)}`;

const SINCE_SHA = createHash('sha1').update(SINCE).digest('hex');

/** One UTC day of an organisation's scores; `hours[h][band]` counts hour h (0-23). */
export interface DayUsage {
  total: number;
  bands: Record<string, number>;
  hours: Record<string, number>[];
}

/**
 * Reads what the audit sink keeps for the Activity page (services/audit-sink/activity.ts): the
 * portal consumes no score stream of its own, so an open page costs a few Redis reads per poll
 * and no work per score.
 */
export class ActivityStore {
  private readonly redis: RedisClient;
  /** CAPABILITY_KEY_PREFIX: where the API nodes count each organisation's phone lookups. */
  private readonly capabilityPrefix: string;

  /** `capabilityPrefix`: the deployment's CAPABILITY_KEY_PREFIX (its default when not given). */
  constructor(redis: RedisClient, capabilityPrefix = 'frs:cap') {
    this.redis = redis;
    this.capabilityPrefix = capabilityPrefix;
  }

  /**
   * Phone lookups the organisation made in the calendar month (UTC) of `now`: the counter its cap
   * is checked against (services/api/capabilities/phone-lookup.ts), so the page says what the cap
   * will say.
   */
  async phoneLookupsUsed(orgId: string, now = Date.now()): Promise<{ period: string; used: number }> {
    const used = await this.redis.get(usedKey(this.capabilityPrefix, orgId, now));
    return { period: new Date(now).toISOString().slice(0, 7), used: Number(used ?? 0) };
  }

  /** Whether a sink that feeds Activity reported within FEED_STALE_MS. */
  async live(): Promise<boolean> {
    try {
      return (await this.redis.exists(FEED_ALIVE_KEY)) === 1;
    } catch {
      return false;
    }
  }

  /**
   * The organisation's latest scores, newest first, duplicates dropped, optionally one band only,
   * with the list's count of pushes (`seq`). Given the `seq` a page already has, only the scores
   * pushed since are read and parsed (`full` false): a poll costs what arrived since the last one,
   * not the whole list. A page with no `seq`, or one the list has moved more than RECENT_MAX past,
   * gets the whole list (`full` true) and replaces its rows.
   */
  async read(
    orgId: string,
    opts: { band?: string; limit?: number; seq?: number } = {},
  ): Promise<RecentScores> {
    const args = [2, recentScoresKey(orgId), recentSeqKey(orgId), opts.seq ?? -1, RECENT_MAX];
    // The script by its digest; once per server start (or after SCRIPT FLUSH) by its text.
    const [seq, full, raw] = (await this.redis
      .call('evalsha_ro', SINCE_SHA, ...args)
      .catch((err: unknown) =>
        err instanceof Error && err.message.startsWith('NOSCRIPT')
          ? this.redis.call('eval_ro', SINCE, ...args)
          : Promise.reject(err),
      )) as [number, number, string[]];
    const seen = new Set<string>();
    const out: ScoreSummary[] = [];
    for (const line of raw) {
      const s = JSON.parse(line) as ScoreSummary;
      if (seen.has(s.score_id)) continue;
      seen.add(s.score_id);
      if (!opts.band || s.band === opts.band) out.push(s);
    }
    const scores = out.sort((a, b) => b.at - a.at).slice(0, opts.limit ?? ACTIVITY_ROWS);
    return { seq, full: full === 1, scores };
  }

  /** Scores of the UTC day of `now`, in total, by band, and by UTC hour and band. */
  async today(orgId: string, now = Date.now()): Promise<DayUsage> {
    const h = await this.redis.hgetall(dailyUsageKey(orgId, utcDay(now)));
    const bands: Record<string, number> = {};
    const hours: Record<string, number>[] = Array.from({ length: 24 }, () => ({}));
    for (const [k, v] of Object.entries(h)) {
      if (k.startsWith('band:')) bands[k.slice(5)] = Number(v);
      const hour = /^hour:(\d{1,2}):(\w+)$/.exec(k);
      if (hour && Number(hour[1]) < 24) hours[Number(hour[1])]![hour[2]!] = Number(v);
    }
    return { total: Number(h.total ?? 0), bands, hours };
  }
}
