import type { Consumer, EachBatchPayload, Kafka } from 'kafkajs';
import type { RedisClient } from '../../shared/clients/redis.ts';
import { SCORES_TOPIC } from '../../shared/clients/kafka.ts';
import type { Logger } from '../../shared/logger.ts';
import { dailyUsageKey, recentScoresKey } from '../../shared/portal/keyspace.ts';
import { projectScore, type ScoreSummary } from './activity-summary.ts';

export type { ScoreSummary } from './activity-summary.ts';

/** Scores kept per organisation for the Activity page; older ones are in ClickHouse. */
export const RECENT_MAX = 500;
const RECENT_TTL_S = 7 * 86_400;
const DAILY_TTL_S = 3 * 86_400;

/**
 * How long the broker may hold a fetch to gather FETCH_MIN_BYTES: a score reaches the page at
 * most this much later than it reaches Kafka (plus the page's 0.5 s poll), well inside 2 s. With
 * the default minimum of 1 byte the broker answers as soon as any record is there, and at a few
 * hundred scores a second the feed made one fetch, one Redis transaction and one offset commit
 * for every handful of records: that fixed cost, not the records, was most of the portal's CPU.
 */
export const FETCH_MAX_WAIT_MS = 400;
/** Compressed bytes worth answering a fetch early for: some thousand records at ~0.4 kB each. */
const FETCH_MIN_BYTES = 512 * 1024;
/** Offsets are committed at most this often: a restart re-applies at most this much (see below). */
const COMMIT_INTERVAL_MS = 5_000;
/**
 * The feed consumes only while some Activity page of the deployment was requested within this
 * time (the page polls twice a second); otherwise its consumer is paused and costs nothing per
 * score. A paused consumer keeps its group and offsets, so on resume it reads the gap from Kafka:
 * the list and the day's usage stay exact, as if it had never paused.
 */
export const IDLE_PAUSE_MS = 60_000;
/** How often each process checks the shared "watched" marker to pause or resume. */
const WATCH_CHECK_MS = 1_000;
/**
 * Set by any portal process of the group that serves an Activity request; read by all of them.
 * Under the recent lists' prefix, which the portal's Redis user may already write; no list key
 * collides (theirs end in `{org}`).
 */
export const watchedKey = (groupId: string) => `frs:portal:recent:watched:${groupId}`;

export const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

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

/**
 * Feeds the Activity page from the score stream, not from the scoring hot path: a consumer group
 * of its own on `scores.v1`, starting at the latest offset the first time, keeps in Redis the
 * last RECENT_MAX scores of each organisation (subjects masked) and each day's counts by band and
 * hour. Every portal process of a deployment shares the group, so each record is applied once (at
 * least once across a rebalance or a restart; the page drops duplicate ids, and a restart can
 * count up to COMMIT_INTERVAL_MS of scores twice in the day's usage).
 *
 * It pays per score only for what the page shows: one JSON.parse and eight fields read
 * (activity-summary.ts), and per batch one Redis transaction per organisation with one LPUSH of
 * all its summaries and one HINCRBY per distinct counter, not five commands per score.
 */
export class ActivityFeed {
  private readonly consumer: Consumer;
  private readonly redis: RedisClient;
  private readonly log: Logger;
  private joined = false;
  private fetched = false;
  private running = false;
  private paused = false;
  private lastMark = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly idleMs: number;
  private readonly watchedKey: string;
  skipped = 0;

  constructor(deps: { kafka: Kafka; groupId: string; redis: RedisClient; log: Logger; idleMs?: number }) {
    this.idleMs = deps.idleMs ?? IDLE_PAUSE_MS;
    this.watchedKey = watchedKey(deps.groupId);
    this.consumer = deps.kafka.consumer({
      groupId: deps.groupId,
      minBytes: FETCH_MIN_BYTES,
      maxWaitTimeInMs: FETCH_MAX_WAIT_MS,
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
    // A group paused since its join makes no fetch and is as ready as one that fetched.
    return this.fetched || (this.paused && this.joined);
  }

  /** True while nobody watches: the consumer keeps its group but fetches nothing. */
  get isPaused(): boolean {
    return this.paused;
  }

  async start(): Promise<void> {
    await this.consumer.connect();
    await this.consumer.subscribe({ topic: SCORES_TOPIC, fromBeginning: false });
    await this.consumer.run({
      eachBatchAutoResolve: false,
      autoCommitInterval: COMMIT_INTERVAL_MS,
      eachBatch: (p) => this.apply(p),
    });
    this.running = true;
    this.timer = setInterval(() => void this.check(), WATCH_CHECK_MS);
    this.timer.unref();
  }

  /**
   * An Activity page or its live endpoint was requested: resume this process's consumer now and
   * mark the deployment watched (at most once a second), so the processes holding the other
   * partitions of the group resume within WATCH_CHECK_MS too.
   */
  watched(): void {
    this.setPaused(false);
    const now = Date.now();
    if (now - this.lastMark < WATCH_CHECK_MS) return;
    this.lastMark = now;
    this.redis.set(this.watchedKey, String(now), 'PX', this.idleMs).catch((err: unknown) => {
      this.log.warn({ err }, 'activity: watched marker not set');
    });
  }

  private async check(): Promise<void> {
    // Not before the first fetch from the group's offsets, which starts it at the latest offset.
    if (!this.fetched) return;
    try {
      this.setPaused((await this.redis.exists(this.watchedKey)) === 0);
    } catch {
      // Redis away: keep the current state; the feed's own writes fail and retry meanwhile.
    }
  }

  private setPaused(paused: boolean): void {
    if (!this.running || paused === this.paused) return;
    this.paused = paused;
    const topics = [{ topic: SCORES_TOPIC }];
    if (paused) this.consumer.pause(topics);
    else this.consumer.resume(topics);
    this.log.info({ paused }, paused ? 'activity: nobody watches; feed paused' : 'activity: feed resumed');
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.running = false;
    await this.consumer.disconnect();
  }

  private async apply({ batch, resolveOffset, heartbeat }: EachBatchPayload): Promise<void> {
    const byOrg = new Map<string, OrgBatch>();
    for (const m of batch.messages) {
      const p = m.value ? projectScore(m.value.toString()) : undefined;
      if (!p) {
        // The sink quarantines bad records; the page just leaves them out.
        if (this.skipped++ % 1000 === 0) this.log.warn({ offset: m.offset }, 'activity: record skipped');
        continue;
      }
      const s = p.summary;
      let b = byOrg.get(p.org);
      if (!b) byOrg.set(p.org, (b = { lines: [], counts: new Map() }));
      b.lines.push(JSON.stringify(s));
      const daily = dailyUsageKey(p.org, utcDay(s.at));
      count(b, daily, 'total');
      count(b, daily, `band:${s.band}`);
      count(b, daily, `hour:${new Date(s.at).getUTCHours()}:${s.band}`);
    }
    // One transaction per organisation: its keys share a hash tag (one slot of a cluster), and
    // its summaries, trim and counts land together. LPUSH of the batch in offset order leaves
    // the newest at the head, as one LPUSH per score did.
    await Promise.all(
      [...byOrg].map(([org, b]) => {
        const tx = this.redis.multi().lpush(recentScoresKey(org), ...b.lines);
        for (const [key, fields] of b.counts) {
          for (const [field, n] of fields) tx.hincrby(key, field, n);
          tx.expire(key, DAILY_TTL_S);
        }
        return tx
          .ltrim(recentScoresKey(org), 0, RECENT_MAX - 1)
          .expire(recentScoresKey(org), RECENT_TTL_S)
          .exec();
      }),
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
