import type { ChainableCommander } from 'ioredis';
import type { Consumer, EachBatchPayload, Kafka } from 'kafkajs';
import type { RedisClient } from '../../shared/clients/redis.ts';
import { AuditRecordEnvelope } from '../../shared/audit/record.ts';
import { SCORES_TOPIC } from '../../shared/clients/kafka.ts';
import type { Logger } from '../../shared/logger.ts';
import { dailyUsageKey, recentScoresKey } from '../../shared/portal/keyspace.ts';

/** Scores kept per organisation for the Activity page; older ones are in ClickHouse. */
export const RECENT_MAX = 500;
const RECENT_TTL_S = 7 * 86_400;
const DAILY_TTL_S = 3 * 86_400;

/** One row of the Activity page. */
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

export const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

function summarize(r: AuditRecordEnvelope): ScoreSummary {
  const subject = (r.request.subject ?? {}) as Record<string, unknown>;
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const factor = r.evidence.primary_risk_factor?.code;
  return {
    score_id: r.score_id,
    at: r.scored_at_ms,
    subject: { phone_number: str(subject.phone_number), ip_address: str(subject.ip_address) },
    score: r.response.score,
    band: r.response.band,
    action: r.response.recommended_action,
    factor: factor ?? null,
    degraded: r.response.degraded_sources,
  };
}

/**
 * Feeds the Activity page from the score stream, not from the scoring hot path: a consumer group
 * of its own on `scores.v1`, starting at the latest offset the first time, keeps in Redis the
 * last RECENT_MAX scores of each organisation and each day's counts by band. Every portal
 * process of a deployment shares the group, so each record is applied once (at least once
 * across a rebalance; the page drops duplicate ids).
 */
export class ActivityFeed {
  private readonly consumer: Consumer;
  private readonly redis: RedisClient;
  private readonly log: Logger;
  private joined = false;
  private fetched = false;
  skipped = 0;

  constructor(deps: { kafka: Kafka; groupId: string; redis: RedisClient; log: Logger }) {
    // Small waits: a score should reach the page well inside 2 s of its 200.
    this.consumer = deps.kafka.consumer({
      groupId: deps.groupId,
      maxWaitTimeInMs: 200,
      sessionTimeout: 30_000,
    });
    this.redis = deps.redis;
    this.log = deps.log;
    this.consumer.on(this.consumer.events.GROUP_JOIN, () => {
      this.joined = true;
      this.fetched = false;
    });
    this.consumer.on(this.consumer.events.FETCH, () => {
      if (this.joined) this.fetched = true;
    });
    this.consumer.on(this.consumer.events.CRASH, (e) => {
      this.joined = false;
      this.log.warn({ err: String(e.payload.error) }, 'activity consumer crashed; kafkajs restarts it');
    });
  }

  /** True once the group is joined and a first fetch from its offsets has been made. */
  get ready(): boolean {
    return this.fetched;
  }

  async start(): Promise<void> {
    await this.consumer.connect();
    await this.consumer.subscribe({ topic: SCORES_TOPIC, fromBeginning: false });
    await this.consumer.run({ eachBatchAutoResolve: false, eachBatch: (p) => this.apply(p) });
  }

  async stop(): Promise<void> {
    await this.consumer.disconnect();
  }

  private async apply({ batch, resolveOffset, heartbeat }: EachBatchPayload): Promise<void> {
    // One transaction per organisation: its keys share a hash tag (one slot of a cluster), and
    // its summaries, trim and counts land together.
    const byOrg = new Map<string, ChainableCommander>();
    for (const m of batch.messages) {
      let parsed;
      try {
        parsed = AuditRecordEnvelope.safeParse(JSON.parse(m.value?.toString() ?? ''));
      } catch {
        parsed = undefined;
      }
      if (!parsed?.success) {
        // The sink quarantines bad records; the page just leaves them out.
        if (this.skipped++ % 1000 === 0) this.log.warn({ offset: m.offset }, 'activity: record skipped');
        continue;
      }
      const s = summarize(parsed.data);
      const org = parsed.data.org_id;
      const daily = dailyUsageKey(org, utcDay(s.at));
      let tx = byOrg.get(org);
      if (!tx) byOrg.set(org, (tx = this.redis.multi()));
      tx.lpush(recentScoresKey(org), JSON.stringify(s));
      tx.hincrby(daily, 'total', 1)
        .hincrby(daily, `band:${s.band}`, 1)
        .hincrby(daily, `hour:${new Date(s.at).getUTCHours()}:${s.band}`, 1)
        .expire(daily, DAILY_TTL_S);
    }
    await Promise.all(
      [...byOrg].map(([org, tx]) =>
        tx
          .ltrim(recentScoresKey(org), 0, RECENT_MAX - 1)
          .expire(recentScoresKey(org), RECENT_TTL_S)
          .exec(),
      ),
    );
    const last = batch.messages.at(-1);
    if (last) resolveOffset(last.offset);
    await heartbeat();
  }
}

/** One UTC day of an organisation's scores; `hours[h][band]` counts hour h (0-23). */
export interface DayUsage {
  total: number;
  bands: Record<string, number>;
  hours: Record<string, number>[];
}

/** Reads what ActivityFeed keeps, for one organisation. */
export class ActivityStore {
  private readonly redis: RedisClient;

  constructor(redis: RedisClient) {
    this.redis = redis;
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
