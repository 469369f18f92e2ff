/**
 * The Activity feed consumes the score stream only while someone watches: idle, its consumer is
 * paused and fetches nothing; a score made meanwhile reaches the page within 2 s of the page
 * being opened again, read from Kafka where the feed paused.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { ActivityFeed, ActivityStore } from '../../services/portal/activity.ts';
import { serializeAuditRecord } from '../../shared/audit/record.ts';
import { createKafka, SCORES_TOPIC } from '../../shared/clients/kafka.ts';
import { newScoreId } from '../../shared/ids.ts';
import { createLogger } from '../../shared/logger.ts';
import { cfg, redisAs } from '../../infra/harness/fixtures.ts';
import { observeFor, waitFor } from '../../infra/harness/wait.ts';

const kafka = createKafka(cfg.KAFKA_BROKERS, 'frs-test-activity-idle');
const producer = kafka.producer();
const redis = redisAs('portal');
const IDLE_MS = 1_500;
const feed = new ActivityFeed({
  kafka,
  groupId: `frs-portal-idle-test-${Date.now()}`,
  redis,
  log: createLogger('test', 'silent'),
  idleMs: IDLE_MS,
});
const store = new ActivityStore(redis);
afterAll(async () => {
  await Promise.all([feed.stop(), producer.disconnect()]);
  redis.disconnect();
});

const org = `org_idle_${Date.now()}`;

/** A small hand-made score record (fixture) of `org`, with the fields the page reads. */
function record(scoreId: string): string {
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
    request: { subject: { ip_address: '81.2.69.142' } },
    evidence: { components: [], primary_risk_factor: { code: 'IP_TOR_EXIT', narrative: 'n' } },
  };
  const response = {
    score_id: scoreId,
    score: 80,
    band: 'high',
    recommended_action: 'block',
    degraded_sources: [],
  };
  return serializeAuditRecord(meta, JSON.stringify(response));
}

const send = (id: string) =>
  producer.send({ topic: SCORES_TOPIC, messages: [{ key: id, value: record(id) }] });
const listed = async (id: string) => (await store.recent(org)).some((s) => s.score_id === id);

describe('the Activity feed when nobody watches', () => {
  it('pauses when idle and shows a score made while paused within 2 s of the page opening', async () => {
    await producer.connect();
    void feed.start();
    await waitFor('the feed joined its group', async () => feed.ready, 30_000);

    // Watched: live as before.
    feed.watched();
    const first = newScoreId(Date.now());
    await send(first);
    await waitFor('the watched score listed', () => listed(first), 2_000);

    // Nobody asks for Activity for IDLE_MS: the consumer pauses and a new score stays in Kafka.
    await waitFor('the feed paused', async () => feed.isPaused, IDLE_MS + 3_000);
    const whilePaused = newScoreId(Date.now());
    await send(whilePaused);
    // Nothing to wait for: the score must not appear while paused, watched for 2 s.
    await observeFor(2_000);
    expect(await listed(whilePaused)).toBe(false);
    expect(feed.isPaused).toBe(true);

    // The page is opened: the feed resumes where it paused and the score appears within 2 s.
    const opened = Date.now();
    feed.watched();
    await waitFor('the paused score listed', () => listed(whilePaused), 2_000);
    console.log(
      `[activity-idle] score made while paused listed ${Date.now() - opened} ms after the page opened`,
    );
    expect((await store.today(org)).total).toBe(2);
  });
});
