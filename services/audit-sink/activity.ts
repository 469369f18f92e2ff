import { readFileSync } from 'node:fs';
import { ReplyError } from 'ioredis';
import { Counter } from 'prom-client';
import type { AuditRecordEnvelope } from '../../shared/audit/record.ts';
import type { RedisClient } from '../../shared/clients/redis.ts';
import type { Logger } from '../../shared/logger.ts';
import {
  DAILY_TTL_S,
  FEED_ALIVE_KEY,
  FEED_BEAT_MS,
  FEED_STALE_MS,
  RECENT_MAX,
  RECENT_TTL_S,
  utcDay,
  type ScoreSummary,
} from '../../shared/portal/activity.ts';
import {
  activityShareKey,
  dailyUsageKey,
  recentScoresKey,
  recentSeqKey,
} from '../../shared/portal/keyspace.ts';
import { maskSubjectValue } from '../../shared/portal/subject-mask.ts';
import { sha256Hex } from '../../shared/sha256.ts';

/**
 * Batches whose writes may be waiting on Redis at once, retries included (a batch keeps its place
 * until its last retry, about 5 s). A slow or frozen Redis must not grow the sink's memory: past
 * this the batch's Activity is skipped (the page misses those scores; ClickHouse has them) and the
 * audit pipeline goes on.
 */
const MAX_IN_FLIGHT = 32;

/**
 * What became of a batch's Activity, by its organisations' shares: `written` (each confirmed at
 * the first send), `written_on_retry` (some confirmed only after their first send went unanswered),
 * `dropped` (some still unconfirmed after the last retry), `failed` (Redis refused one with an
 * error), `skipped` (never sent: Redis disconnected, or MAX_IN_FLIGHT batches waiting).
 */
export const ACTIVITY_OUTCOMES = ['written', 'written_on_retry', 'dropped', 'failed', 'skipped'] as const;
export type ActivityOutcome = (typeof ACTIVITY_OUTCOMES)[number];

const activityBatches = new Counter({
  name: 'frs_sink_activity_batches_total',
  help:
    "Batches of scores for the portal's Activity lists and day counts, by outcome: written, " +
    'written_on_retry, dropped (the page may miss scores), failed (Redis refused), skipped (not sent)',
  labelNames: ['outcome'],
});
// Every series from 0, so an increase() over the first drop is not lost.
for (const outcome of ACTIVITY_OUTCOMES) activityBatches.inc({ outcome }, 0);

/** How long a share's marker lasts: far past the last retry (RETRY_DELAYS_MS, about 5 s in all). */
const SHARE_MARKER_TTL_MS = 60_000;
/**
 * After a share's send goes unanswered within the client's command timeout, the waits before each
 * look at its marker. A timed-out send is not lost: Redis runs it when it gets to it, unless the
 * connection drops first. Sent again blindly it would count the day's scores twice; so the look
 * (an EXISTS on the same connection, answered only after the send) says whether it ran, and only
 * a share whose marker is absent is sent again.
 */
const RETRY_DELAYS_MS = [250, 500, 1_000, 2_000];

const SHARE_SCRIPT = readFileSync(new URL('./activity-batch.lua', import.meta.url), 'utf8');

type ScriptedRedis = RedisClient & { frsActivityShare(numKeys: number, ...args: string[]): Promise<number> };

/** The page's row of one score: its eight fields, the subject masked. */
export function summarise(r: AuditRecordEnvelope): ScoreSummary {
  const phone = r.request.subject.phone_number ?? '';
  const ip = r.request.subject.ip_address ?? '';
  return {
    score_id: r.score_id,
    at: r.scored_at_ms,
    subject: {
      ...(phone !== '' && { phone_number: maskSubjectValue('phone_number', phone) }),
      ...(ip !== '' && { ip_address: maskSubjectValue('ip_address', ip) }),
    },
    score: r.response.score,
    band: r.response.band,
    action: r.response.recommended_action,
    factor: r.evidence.primary_risk_factor?.code ?? null,
    degraded: r.response.degraded_sources,
  };
}

/** One organisation's share of a batch: its summaries in offset order and its counter increments. */
interface OrgBatch {
  ids: string[];
  lines: string[];
  /** daily key -> field -> increment */
  counts: Map<string, Map<string, number>>;
}

function count(b: OrgBatch, key: string, field: string): void {
  let fields = b.counts.get(key);
  if (!fields) b.counts.set(key, (fields = new Map()));
  fields.set(field, (fields.get(field) ?? 0) + 1);
}

/** A batch's summaries and day counts (total, by band, by UTC hour and band), by organisation. */
export function byOrganisation(records: readonly AuditRecordEnvelope[]): Map<string, OrgBatch> {
  const byOrg = new Map<string, OrgBatch>();
  for (const r of records) {
    const s = summarise(r);
    let b = byOrg.get(r.org_id);
    if (!b) byOrg.set(r.org_id, (b = { ids: [], lines: [], counts: new Map() }));
    b.ids.push(r.score_id);
    b.lines.push(JSON.stringify(s));
    const daily = dailyUsageKey(r.org_id, utcDay(s.at));
    count(b, daily, 'total');
    count(b, daily, `band:${s.band}`);
    count(b, daily, `hour:${new Date(s.at).getUTCHours()}:${s.band}`);
  }
  return byOrg;
}

/** The keys and arguments of activity-batch.lua for one organisation's share. */
export function shareCall(org: string, b: OrgBatch): { marker: string; keys: string[]; args: string[] } {
  const marker = activityShareKey(org, sha256Hex(b.ids.join(',')).slice(0, 32));
  const keys = [recentScoresKey(org), recentSeqKey(org), marker, ...b.counts.keys()];
  const args = [RECENT_MAX, RECENT_TTL_S, DAILY_TTL_S, SHARE_MARKER_TTL_MS, b.lines.length].map(String);
  args.push(...b.lines);
  for (const fields of b.counts.values()) {
    args.push(String(fields.size));
    for (const [field, n] of fields) args.push(field, String(n));
  }
  return { marker, keys, args };
}

/** A share not confirmed after the last retry: it may still land once, never twice. */
class Unconfirmed extends Error {}

/** The batch's outcome from its shares': the worst of them. */
function outcomeOf(shares: PromiseSettledResult<'written' | 'written_on_retry'>[]): ActivityOutcome {
  const failures = shares.flatMap((s) => (s.status === 'rejected' ? [s.reason as unknown] : []));
  if (failures.some((e) => !(e instanceof Unconfirmed))) return 'failed';
  if (failures.length > 0) return 'dropped';
  return shares.some((s) => s.status === 'fulfilled' && s.value === 'written_on_retry')
    ? 'written_on_retry'
    : 'written';
}

/**
 * Keeps the portal's Activity page from the records the sink has decoded anyway: per organisation
 * the last RECENT_MAX scores (subjects masked) and each UTC day's counts, one script per
 * organisation and batch (activity-batch.lua; its keys share a hash tag: one slot of a cluster),
 * applied at most once. The sink is the one process that reads every score record whole; a
 * consumer of the portal's own decoded the stream a second time and cost as much CPU as an API node.
 *
 * Fire and forget: the audit pipeline never waits for it, and a Redis that is down or slow costs
 * the page at most those scores, counted in frs_sink_activity_batches_total, never a row of
 * ClickHouse. A share whose reply does not come within the client's command timeout is looked for
 * again for about 5 s (RETRY_DELAYS_MS) and sent again only if it did not land. Only one sink
 * group of a deployment feeds it (AUDIT_SINK_ACTIVITY); a batch the sink consumes twice (a restart
 * before its offsets were committed) is listed once, as the page drops repeated ids, and counted
 * twice in the day's usage unless its share is the same and within a minute (its marker).
 */
export class ActivityWriter {
  private readonly redis: ScriptedRedis;
  private readonly log: Logger;
  private inFlight = 0;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  failed = 0;

  constructor(redis: RedisClient, log: Logger) {
    this.redis = redis as ScriptedRedis;
    if (typeof this.redis.frsActivityShare !== 'function')
      redis.defineCommand('frsActivityShare', { lua: SHARE_SCRIPT });
    this.log = log;
  }

  /** Marks the feed alive now and every FEED_BEAT_MS: the page says "live" while it is. */
  start(): void {
    // A fail-fast client refuses commands until connected: beat as soon as it is, and again on
    // every reconnection, so the page does not wait a whole period to say it is live.
    if (this.redis.status === 'ready') this.beat();
    this.redis.on('ready', this.beat);
    this.timer = setInterval(this.beat, FEED_BEAT_MS);
    this.timer.unref();
  }

  /** Stops the beat; a share waiting for a retry gives up (counted `dropped`). */
  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
    this.redis.off('ready', this.beat);
  }

  private readonly beat = (): void => {
    this.redis.set(FEED_ALIVE_KEY, String(Date.now()), 'PX', FEED_STALE_MS).catch(() => undefined);
  };

  write(records: readonly AuditRecordEnvelope[]): void {
    if (records.length === 0) return;
    if (this.redis.status !== 'ready' || this.inFlight >= MAX_IN_FLIGHT) {
      this.count('skipped', { status: this.redis.status, inFlight: this.inFlight });
      return;
    }
    this.inFlight++;
    // Each share's promise settles: the retries catch their own errors, and outcomeOf reads them.
    void Promise.allSettled([...byOrganisation(records)].map(([org, b]) => this.applyShare(org, b)))
      .then((shares) => {
        const failures = shares.flatMap((s) => (s.status === 'rejected' ? [s.reason as unknown] : []));
        this.count(outcomeOf(shares), failures.length > 0 ? { err: failures[0] } : {});
      })
      .finally(() => this.inFlight--);
  }

  private count(outcome: ActivityOutcome, detail: object): void {
    activityBatches.inc({ outcome });
    if (outcome === 'written' || outcome === 'written_on_retry') return;
    if (this.failed++ % 1000 === 0) this.log.warn(detail, `activity: batch ${outcome}`);
  }

  /**
   * Sends one share; when the reply does not come in time, looks at its marker after each of
   * RETRY_DELAYS_MS and sends it again only when absent. An error Redis answered (a refused
   * command, a script error) is not retried: sent again, it would be refused again.
   */
  private async applyShare(org: string, b: OrgBatch): Promise<'written' | 'written_on_retry'> {
    const { marker, keys, args } = shareCall(org, b);
    const send = () => this.redis.frsActivityShare(keys.length, ...keys, ...args);
    try {
      await send();
      return 'written';
    } catch (err) {
      if (err instanceof ReplyError) throw err;
    }
    for (const delay of RETRY_DELAYS_MS) {
      await new Promise((r) => setTimeout(r, delay).unref());
      if (this.stopped) break;
      try {
        // Answered after the first send on this connection: 1 when that one has run.
        if ((await this.redis.exists(marker)) === 0) await send();
        return 'written_on_retry';
      } catch (err) {
        if (err instanceof ReplyError) throw err;
      }
    }
    throw new Unconfirmed(`activity of ${org}: ${b.ids.length} scores unconfirmed after the last retry`);
  }
}
