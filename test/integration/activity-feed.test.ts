/**
 * The portal's Activity page is fed by the audit sink, from the records it decodes anyway: a real
 * sink process on the stack's Kafka, Redis and ClickHouse lists a score within 2 s of its record
 * reaching Kafka and counts it once; a Redis it cannot reach costs the page, never ClickHouse.
 * A Redis of the test's own, paused (`CLIENT PAUSE`) past the sink's 250 ms command timeout: a
 * batch is confirmed on a retry and counted once, or, paused past the retries, counted `dropped`
 * in the sink's /metrics (and still applied once when Redis resumes), while ClickHouse gets
 * every row during the pause.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { ActivityStore } from '../../services/portal/activity.ts';
import { serializeAuditRecord } from '../../shared/audit/record.ts';
import { createKafka, SCORES_TOPIC } from '../../shared/clients/kafka.ts';
import { createRedis } from '../../shared/clients/redis.ts';
import { PrivateRedis } from '../helpers/private-redis.ts';
import { sample, scrape, type Scrape } from '../helpers/metrics.ts';
import { newScoreId } from '../../shared/ids.ts';
import { cfg, redisAs } from '../../infra/harness/fixtures.ts';
import { freePort, startActivitySink, startSink, type Service } from '../../infra/harness/processes.ts';
import { sinkGroupAtEnd } from '../../infra/harness/sink-group.ts';
import { waitFor } from '../../infra/harness/wait.ts';

const kafka = createKafka(cfg.KAFKA_BROKERS, 'frs-test-activity-feed');
const producer = kafka.producer();
const redis = redisAs('portal');
const store = new ActivityStore(redis);
const sinks: Service[] = [];
const privates: PrivateRedis[] = [];
afterAll(async () => {
  await Promise.all(sinks.map((s) => s.stop()));
  await Promise.all(privates.map((r) => r.destroy()));
  await producer.disconnect();
  redis.disconnect();
});

/** A small hand-made score record (fixture) of `org`, with the fields the sink and the page read. */
function record(org: string, scoreId: string): string {
  const now = Date.now();
  const meta = {
    v: 1 as const,
    score_id: scoreId,
    org_id: org,
    tier: 'bureau' as const,
    scored_at: new Date(now).toISOString(),
    scored_at_ms: now,
    node_id: 'n1',
    latency_ms: 3,
    request: { subject: { phone_number: '+447911123456', ip_address: '81.2.69.142' } },
    evidence: { components: [], primary_risk_factor: { code: 'IP_TOR_EXIT', narrative: 'n' } },
  };
  const response = {
    score_id: scoreId,
    score_version: '2026.12.3',
    score: 80,
    band: 'high',
    recommended_action: 'block',
    degraded_sources: [],
  };
  return serializeAuditRecord(meta, JSON.stringify(response));
}

const send = (org: string, id: string) =>
  producer.send({ topic: SCORES_TOPIC, messages: [{ key: id, value: record(org, id) }] });
const listed = async (org: string, id: string) =>
  (await store.read(org)).scores.some((s) => s.score_id === id);

/**
 * Whether `groupId` committed past `sent`'s offset: the sink commits a batch only after ClickHouse
 * took it. (Other tests' sinks write the same table meanwhile, so a row there would prove nothing.)
 */
async function committedPast(groupId: string, sent: { partition: number; offset: string }): Promise<boolean> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const [committed] = await admin.fetchOffsets({ groupId, topics: [SCORES_TOPIC] });
    const at = committed?.partitions.find((p) => p.partition === sent.partition)?.offset ?? '-1';
    return BigInt(at) > BigInt(sent.offset);
  } finally {
    await admin.disconnect();
  }
}

/**
 * A sink in a group of its own whose Activity Redis (the durable REDIS_URL) is a private server,
 * once ready (its /readyz), with its metrics URL. The ledger keeps the stack's Redis.
 */
async function sinkOnPrivateRedis(): Promise<{
  page: ActivityStore;
  pause: (ms: number) => Promise<void>;
  metrics: string;
  group: string;
}> {
  const priv = await PrivateRedis.start();
  privates.push(priv);
  const port = await freePort();
  const { AUDIT_SINK_GROUP: group } = await sinkGroupAtEnd();
  sinks.push(
    startSink({
      AUDIT_SINK_GROUP: group,
      AUDIT_SINK_ACTIVITY: 'true',
      AUDIT_SINK_METRICS_PORT: String(port),
      LEDGER_REDIS_URL: cfg.REDIS_URL,
      REDIS_URL: priv.url,
    }),
  );
  const metrics = `http://127.0.0.1:${port}`;
  const ready = async () => (await fetch(`${metrics}/readyz`).catch(() => undefined))?.ok === true;
  await waitFor('the sink ready', ready, 90_000, 250);
  // The server's default user, for the test's own reads and the pause.
  const reader = createRedis(priv.url);
  const pause = async (ms: number) => void (await reader.call('CLIENT', 'PAUSE', String(ms), 'ALL'));
  return { page: new ActivityStore(reader), pause, metrics, group };
}

/** How much the sink's count of batches with `outcome` rose since `before`. */
const rose = (now: Scrape, before: Scrape, outcome: string) =>
  (sample(now, 'frs_sink_activity_batches_total', { outcome }) ?? 0) -
  (sample(before, 'frs_sink_activity_batches_total', { outcome }) ?? 0);

/** Both records in one send (one batch, when they share a partition); their offsets. */
async function sendBoth(org: string, ids: string[]) {
  const meta = await producer.send({
    topic: SCORES_TOPIC,
    messages: ids.map((id) => ({ key: org, value: record(org, id) })),
  });
  return meta.map((m) => ({ partition: m.partition, offset: m.baseOffset! }));
}

describe('the Activity feed, kept by the audit sink', () => {
  it('lists a score within 2 s of its record reaching Kafka, masked, counted once', async () => {
    await producer.connect();
    sinks.push(await startActivitySink(await sinkGroupAtEnd()));
    const org = `org_feed_${Date.now()}`;
    const first = newScoreId(Date.now());
    await send(org, first);
    await waitFor('the first score listed', () => listed(org, first), 10_000, 50);

    const { seq } = await store.read(org);
    const id = newScoreId(Date.now());
    const sent = Date.now();
    await send(org, id);
    await waitFor('the score listed', () => listed(org, id), 2_000, 50);
    console.log(`[activity-feed] listed ${Date.now() - sent} ms after its record reached Kafka`);
    const [row] = (await store.read(org)).scores.filter((s) => s.score_id === id);
    expect(row).toMatchObject({
      subject: { phone_number: '+44••••••••56', ip_address: '81.•.•.•' },
      score: 80,
      band: 'high',
      action: 'block',
      factor: 'IP_TOR_EXIT',
    });
    // A page that has seen the list at `seq` gets only what was pushed since.
    expect(await store.read(org, { seq })).toMatchObject({
      seq: seq + 1,
      full: false,
      scores: [{ score_id: id }],
    });
    expect(await store.read(org, { seq: seq + 1 })).toEqual({ seq: seq + 1, full: false, scores: [] });
    // One it cannot serve a difference to (no count, or a count ahead of the list's) gets it all.
    expect(await store.read(org, { seq: seq + 5 })).toMatchObject({
      full: true,
      scores: [{ score_id: id }, { score_id: first }],
    });
    const today = await store.today(org);
    expect(today.total).toBe(2);
    expect(today.bands).toEqual({ high: 2 });
    expect(await store.live()).toBe(true);
    // Another organisation's list has none of it.
    expect((await store.read(`${org}_other`)).scores).toEqual([]);
  }, 90_000);

  it('a sink whose Activity Redis is unreachable still writes every score to ClickHouse', async () => {
    // The first test's sink would list these; this one alone is at work now.
    await sinks.pop()?.stop();
    const closed = await freePort();
    const group = await sinkGroupAtEnd();
    sinks.push(
      startSink({
        ...group,
        AUDIT_SINK_ACTIVITY: 'true',
        // The ledger keeps the stack's Redis; Activity's (the durable REDIS_URL) is a closed port.
        LEDGER_REDIS_URL: cfg.REDIS_URL,
        REDIS_URL: `redis://127.0.0.1:${closed}`,
      }),
    );
    const org = `org_feed_down_${Date.now()}`;
    const sent = [];
    for (const id of [newScoreId(Date.now()), newScoreId(Date.now())]) {
      const [meta] = await send(org, id);
      sent.push({ partition: meta!.partition, offset: meta!.baseOffset! });
    }
    for (const m of sent)
      await waitFor(
        'the sink committed the scores',
        () => committedPast(group.AUDIT_SINK_GROUP, m),
        60_000,
        250,
      );
    expect((await store.read(org)).scores).toEqual([]);
  }, 90_000);

  it('a Redis paused past the command timeout: the batch is confirmed on a retry and counted once', async () => {
    await producer.connect();
    const { page, pause, metrics, group } = await sinkOnPrivateRedis();
    const org = `org_feed_slow_${Date.now()}`;
    const warm = newScoreId(Date.now());
    await send(org, warm);
    const listedHere = async (id: string) => (await page.read(org)).scores.some((s) => s.score_id === id);
    await waitFor('the first score listed', () => listedHere(warm), 30_000, 50);
    const before = await scrape(metrics);

    // 3 s: more than the sink's 250 ms command timeout, less than its retries (about 5 s).
    await pause(3_000);
    const ids = [newScoreId(Date.now()), newScoreId(Date.now())];
    const sent = await sendBoth(org, ids);
    await waitFor(
      'a batch confirmed on a retry',
      async () => rose(await scrape(metrics), before, 'written_on_retry') >= 1,
      20_000,
      100,
    );
    const after = await scrape(metrics);
    expect(rose(after, before, 'dropped') + rose(after, before, 'failed')).toBe(0);
    // Listed once and counted once: the first send ran when Redis resumed, the retry found it done.
    const { scores } = await page.read(org);
    expect(scores.filter((s) => ids.includes(s.score_id))).toHaveLength(2);
    expect((await page.today(org)).total).toBe(3);
    for (const m of sent)
      await waitFor('the sink committed the scores', () => committedPast(group, m), 60_000, 250);
  }, 120_000);

  it('a Redis paused past the retries: the batch counts as dropped, ClickHouse gets every row meanwhile', async () => {
    await producer.connect();
    const { page, pause, metrics, group } = await sinkOnPrivateRedis();
    const org = `org_feed_paused_${Date.now()}`;
    const warm = newScoreId(Date.now());
    await send(org, warm);
    await waitFor(
      'the first score listed',
      async () => (await page.read(org)).scores.length === 1,
      30_000,
      50,
    );
    const before = await scrape(metrics);

    const pausedUntil = Date.now() + 12_000;
    await pause(12_000);
    const ids = [newScoreId(Date.now()), newScoreId(Date.now())];
    const sent = await sendBoth(org, ids);
    // The insert and the offsets' commit do not wait for the Activity write.
    for (const m of sent)
      await waitFor('the sink committed the scores', () => committedPast(group, m), 10_000, 250);
    await waitFor(
      'the batch counted dropped',
      async () => rose(await scrape(metrics), before, 'dropped') >= 1,
      10_000,
      100,
    );
    expect(Date.now()).toBeLessThan(pausedUntil);
    expect(rose(await scrape(metrics), before, 'written_on_retry')).toBe(0);
    // Dropped from the sink's view only: the send Redis held runs once it resumes, never twice.
    await waitFor(
      'the paused send applied',
      async () => (await page.read(org)).scores.length === 3,
      20_000,
      100,
    );
    expect((await page.today(org)).total).toBe(3);
  }, 120_000);
});
