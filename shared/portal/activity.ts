/**
 * What the portal's Activity page shows, as the audit sink keeps it in Redis and the portal reads
 * it (services/audit-sink/activity.ts writes, services/portal/activity.ts reads), under the keys
 * recentScoresKey and dailyUsageKey of keyspace.ts.
 */

/** Scores kept per organisation for the Activity page; older ones are in ClickHouse. */
export const RECENT_MAX = 500;
export const RECENT_TTL_S = 7 * 86_400;
export const DAILY_TTL_S = 3 * 86_400;

/**
 * Set by every sink process that feeds Activity, every FEED_BEAT_MS, expiring after
 * FEED_STALE_MS: the page says it is live while the key exists. Under the recent lists' prefix,
 * which both the sink's and the portal's Redis users may use; no list key collides (theirs end in
 * `{org}`).
 */
export const FEED_ALIVE_KEY = 'frs:portal:recent:feed-alive';
export const FEED_BEAT_MS = 5_000;
export const FEED_STALE_MS = 20_000;

export const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * One row of the Activity page. The subject is stored masked: the list lives in the durable
 * Redis for days, and the page reveals a subject from the score's own record (the explain copy or
 * ClickHouse), never from this list.
 */
export interface ScoreSummary {
  score_id: string;
  at: number;
  subject: { phone_number?: string; ip_address?: string };
  score: number;
  band: string;
  action: string;
  factor: string | null;
  degraded: string[];
}
