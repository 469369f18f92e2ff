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
import { dailyUsageKey, recentScoresKey, recentSeqKey } from '../../shared/portal/keyspace.ts';
import { maskSubjectValue } from '../../shared/portal/subject-mask.ts';

/**
 * Batches whose writes may be waiting on Redis at once. A slow or frozen Redis must not grow the
 * sink's memory: past this the batch's Activity is skipped (the page misses those scores;
 * ClickHouse has them) and the audit pipeline goes on.
 */
const MAX_IN_FLIGHT = 32;

const activityBatches = new Counter({
  name: 'frs_sink_activity_batches_total',
  help: "Batches of scores written to the portal's Activity lists and day counts, by outcome",
  labelNames: ['outcome'],
});

/** The page's row of one score: its eight fields, the subject masked. */
export function summarise(r: AuditRecordEnvelope): ScoreSummary {
  const subject = r.request.subject as { phone_number?: unknown; ip_address?: unknown } | undefined;
  const phone = typeof subject?.phone_number === 'string' ? subject.phone_number : '';
  const ip = typeof subject?.ip_address === 'string' ? subject.ip_address : '';
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
    if (!b) byOrg.set(r.org_id, (b = { lines: [], counts: new Map() }));
    b.lines.push(JSON.stringify(s));
    const daily = dailyUsageKey(r.org_id, utcDay(s.at));
    count(b, daily, 'total');
    count(b, daily, `band:${s.band}`);
    count(b, daily, `hour:${new Date(s.at).getUTCHours()}:${s.band}`);
  }
  return byOrg;
}

/**
 * Keeps the portal's Activity page from the records the sink has decoded anyway: per organisation
 * the last RECENT_MAX scores (subjects masked) and each UTC day's counts, one Redis transaction
 * per organisation and batch (its keys share a hash tag: one slot of a cluster). The sink is the
 * one process that reads every score record whole; a consumer of the portal's own decoded the
 * stream a second time and cost as much CPU as an API node.
 *
 * Fire and forget: the audit pipeline never waits for it, and a Redis that is down or slow costs
 * the page those scores (counted in frs_sink_activity_batches_total), never a row of ClickHouse.
 * Only one sink group of a deployment feeds it (AUDIT_SINK_ACTIVITY); a batch the sink consumes
 * twice (a restart before its offsets were committed) is listed once, as the page drops repeated
 * ids, and counted twice in the day's usage.
 */
export class ActivityWriter {
  private readonly redis: RedisClient;
  private readonly log: Logger;
  private inFlight = 0;
  private timer: NodeJS.Timeout | undefined;
  failed = 0;

  constructor(redis: RedisClient, log: Logger) {
    this.redis = redis;
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

  stop(): void {
    clearInterval(this.timer);
    this.redis.off('ready', this.beat);
  }

  private readonly beat = (): void => {
    this.redis.set(FEED_ALIVE_KEY, String(Date.now()), 'PX', FEED_STALE_MS).catch(() => undefined);
  };

  write(records: readonly AuditRecordEnvelope[]): void {
    if (records.length === 0) return;
    if (this.redis.status !== 'ready' || this.inFlight >= MAX_IN_FLIGHT) {
      this.skip('skipped', { status: this.redis.status, inFlight: this.inFlight });
      return;
    }
    this.inFlight++;
    this.apply(records)
      .then(() => activityBatches.inc({ outcome: 'written' }))
      .catch((err: unknown) => this.skip('failed', { err }))
      .finally(() => this.inFlight--);
  }

  private skip(outcome: 'skipped' | 'failed', detail: object): void {
    activityBatches.inc({ outcome });
    if (this.failed++ % 1000 === 0) this.log.warn(detail, `activity: batch ${outcome}`);
  }

  private async apply(records: readonly AuditRecordEnvelope[]): Promise<void> {
    await Promise.all(
      [...byOrganisation(records)].map(([org, b]) => {
        // LPUSH of the batch in offset order leaves the newest at the head.
        const tx = this.redis.multi().lpush(recentScoresKey(org), ...b.lines);
        for (const [key, fields] of b.counts) {
          for (const [field, n] of fields) tx.hincrby(key, field, n);
          tx.expire(key, DAILY_TTL_S);
        }
        return tx
          .ltrim(recentScoresKey(org), 0, RECENT_MAX - 1)
          .expire(recentScoresKey(org), RECENT_TTL_S)
          .incrby(recentSeqKey(org), b.lines.length)
          .expire(recentSeqKey(org), RECENT_TTL_S)
          .exec();
      }),
    );
  }
}
