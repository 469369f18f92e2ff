import type { RedisClient } from '../../shared/clients/redis.ts';
import { FEED_ALIVE_KEY, RECENT_MAX, utcDay, type ScoreSummary } from '../../shared/portal/activity.ts';
import { dailyUsageKey, recentScoresKey } from '../../shared/portal/keyspace.ts';

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

  constructor(redis: RedisClient) {
    this.redis = redis;
  }

  /** Whether a sink that feeds Activity reported within FEED_STALE_MS. */
  async live(): Promise<boolean> {
    try {
      return (await this.redis.exists(FEED_ALIVE_KEY)) === 1;
    } catch {
      return false;
    }
  }

  /** Newest first, duplicates dropped, optionally one band only. */
  async recent(orgId: string, band?: string, limit = 100): Promise<ScoreSummary[]> {
    const raw = await this.redis.lrange(recentScoresKey(orgId), 0, RECENT_MAX - 1);
    const seen = new Set<string>();
    const out: ScoreSummary[] = [];
    for (const line of raw) {
      const s = JSON.parse(line) as ScoreSummary;
      if (seen.has(s.score_id)) continue;
      seen.add(s.score_id);
      if (!band || s.band === band) out.push(s);
    }
    return out.sort((a, b) => b.at - a.at).slice(0, limit);
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
