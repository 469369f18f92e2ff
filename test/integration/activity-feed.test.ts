/**
 * The portal's Activity page is fed by the audit sink, from the records it decodes anyway: a real
 * sink process on the stack's Kafka, Redis and ClickHouse lists a score within 2 s of its record
 * reaching Kafka and counts it once; a Redis it cannot reach costs the page, never ClickHouse.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { ActivityStore } from '../../services/portal/activity.ts';
import { serializeAuditRecord } from '../../shared/audit/record.ts';
import { createKafka, SCORES_TOPIC } from '../../shared/clients/kafka.ts';
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
afterAll(async () => {
  await Promise.all(sinks.map((s) => s.stop()));
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
});
