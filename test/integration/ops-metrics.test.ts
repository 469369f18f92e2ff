/**
 * The audit sink and the refresher as an operator runs them: real processes on the real stack,
 * scraped over HTTP. Each metric is checked to move with what the process actually did.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { serializeAuditRecord } from '../../shared/audit/record.ts';
import { createKafka, SCORES_TOPIC } from '../../shared/clients/kafka.ts';
import { quote, quoteIdent } from '../../shared/clients/sql.ts';
import { newScoreId } from '../../shared/ids.ts';
import { clickhouse, cfg, redis } from '../../infra/harness/fixtures.ts';
import { sinkGroupAtEnd } from '../../infra/harness/sink-group.ts';
import { unlinkPrefix } from '../../infra/harness/feed-server.ts';
import { scrape, sample, total, type Scrape } from '../helpers/metrics.ts';
import { freePort, spawnService, waitFor, type Service } from '../../infra/harness/processes.ts';

const kafka = createKafka(cfg.KAFKA_BROKERS, 'frs-test-ops-metrics');

/** A valid audit record of a fresh score, as an API node would publish it. */
function auditRecord(scoreId: string, orgId: string): string {
  const now = Date.now();
  const response = {
    score_id: scoreId,
    tier: 'verify',
    score_version: '2026.11.0',
    score: 12,
    score_type: 'ranking',
    band: 'minimal',
    recommended_action: 'allow',
    suppressed: [],
    disclosure: 'a ranking, not a probability',
    degraded_sources: [],
  };
  return serializeAuditRecord(
    {
      v: 1,
      score_id: scoreId,
      org_id: orgId,
      tier: 'verify',
      scored_at: new Date(now).toISOString(),
      scored_at_ms: now,
      node_id: 'ops-metrics-test',
      latency_ms: 1,
      request: { subject: { ip_address: '192.0.2.1' } },
      evidence: { components: [] },
    },
    JSON.stringify(response),
  );
}

async function produce(
  messages: { key: string; value: string }[],
): Promise<{ partition: number; offset: string }[]> {
  const producer = kafka.producer();
  await producer.connect();
  try {
    const sent = await producer.send({ topic: SCORES_TOPIC, acks: -1, messages });
    return sent.map((r) => ({ partition: r.partition, offset: r.baseOffset ?? '0' }));
  } finally {
    await producer.disconnect();
  }
}

async function topicOffsets() {
  const admin = kafka.admin();
  await admin.connect();
  try {
    return await admin.fetchTopicOffsets(SCORES_TOPIC);
  } finally {
    await admin.disconnect();
  }
}
/** Records each partition holds. */
const topicSpan = async () =>
  new Map((await topicOffsets()).map((p) => [String(p.partition), Number(p.high) - Number(p.low)]));
/** Next offset of each partition. */
const topicEnds = async () =>
  new Map((await topicOffsets()).map((p) => [String(p.partition), Number(p.high)]));

/** Starts a service with its metrics server on a free port and waits for /readyz. */
async function startWithMetrics(
  entry: string,
  portVar: string,
  env: Record<string, string>,
): Promise<{ svc: Service; url: string }> {
  const port = await freePort();
  const svc = spawnService(entry, { [portVar]: String(port), ...env });
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitFor(`${entry} /readyz`, async () => (await fetch(`${url}/readyz`)).ok, 90_000, 250);
  } catch (err) {
    await svc.stop('SIGKILL');
    throw new Error(`${String(err)}\n${svc.output()}`, { cause: err });
  }
  return { svc, url };
}

function expectType(s: Scrape, name: string, type: string) {
  expect(s.types.get(name), name).toBe(type);
}

describe('audit sink metrics and health', () => {
  let running: Service | undefined;
  afterEach(async () => {
    await running?.stop();
    running = undefined;
  });

  it('counts failed inserts and reports the partitions behind while ClickHouse refuses them', async () => {
    const [placed] = await produce([
      { key: 'k', value: auditRecord(newScoreId(), `org_ops_${randomUUID().slice(0, 8)}`) },
    ]);
    // A database that does not exist: every insert fails, so no batch with a valid record commits.
    const { svc, url } = await startWithMetrics('services/audit-sink/main.ts', 'AUDIT_SINK_METRICS_PORT', {
      AUDIT_SINK_GROUP: `frs-test-ops-failing-${randomUUID()}`,
      CLICKHOUSE_DATABASE: `frs_missing_${randomUUID().replace(/-/g, '')}`,
    });
    running = svc;
    expect((await fetch(`${url}/livez`)).status).toBe(200);
    const failing = await waitFor('insert failures', async () => {
      const s = await scrape(url);
      return total(s, 'frs_sink_insert_failures_total') >= 1 ? s : undefined;
    });
    expectType(failing, 'frs_sink_insert_failures_total', 'counter');
    expect(total(failing, 'frs_sink_rows_inserted_total')).toBe(0);
    expect(total(failing, 'frs_sink_insert_duration_seconds_count')).toBeGreaterThanOrEqual(1);
    const span = await topicSpan();
    const lag = await scrape(url);
    expectType(lag, 'frs_sink_consumer_lag_records', 'gauge');
    // Every partition is reported, none beyond what it holds; the record just produced (and all
    // after it on its partition) is still behind. Batches of poison records only may commit.
    for (const [partition, records] of span) {
      const behind = sample(lag, 'frs_sink_consumer_lag_records', { topic: SCORES_TOPIC, partition });
      expect(behind, partition).toBeGreaterThanOrEqual(0);
      expect(behind, partition).toBeLessThanOrEqual(records);
    }
    const mine = String(placed!.partition);
    const end = (await topicEnds()).get(mine)!;
    expect(
      sample(lag, 'frs_sink_consumer_lag_records', { topic: SCORES_TOPIC, partition: mine }),
    ).toBeGreaterThanOrEqual(end - Number(placed!.offset));
  });

  it('counts inserted rows and DLQ records, and the lag falls to zero once caught up', async () => {
    const scoreId = newScoreId();
    const orgId = `org_ops_${randomUUID().slice(0, 8)}`;
    const { AUDIT_SINK_GROUP: groupId } = await sinkGroupAtEnd('frs-test-ops');
    await produce([
      { key: scoreId, value: auditRecord(scoreId, orgId) },
      { key: `poison-${randomUUID()}`, value: '{"v":1,"score_id":"not-an-id"}' },
    ]);
    const { svc, url } = await startWithMetrics('services/audit-sink/main.ts', 'AUDIT_SINK_METRICS_PORT', {
      AUDIT_SINK_GROUP: groupId,
    });
    running = svc;
    const caughtUp = await waitFor(
      'the sink to catch up',
      async () => {
        const s = await scrape(url);
        const lags = s.samples.filter((x) => x.name === 'frs_sink_consumer_lag_records');
        // The batch is timed when its handler returns, just after its offsets are committed.
        return lags.length > 0 &&
          lags.every((x) => x.value === 0) &&
          total(s, 'frs_sink_rows_inserted_total') >= 1 &&
          total(s, 'frs_sink_batch_duration_seconds_count') >= 1
          ? s
          : undefined;
      },
      60_000,
      250,
    );
    expectType(caughtUp, 'frs_sink_rows_inserted_total', 'counter');
    expectType(caughtUp, 'frs_sink_dlq_records_total', 'counter');
    expectType(caughtUp, 'frs_sink_batch_duration_seconds', 'histogram');
    expect(total(caughtUp, 'frs_sink_dlq_records_total')).toBeGreaterThanOrEqual(1);
    // Insert failures are not asserted: this group reads the topic from its start, and earlier
    // tests leave records ClickHouse refuses there (the sink splits and quarantines them).
    expect(sample(caughtUp, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    // The counted row is really there.
    const ch = clickhouse();
    const rs = await ch.query({
      query: `SELECT count() AS n FROM ${quoteIdent(cfg.CLICKHOUSE_DATABASE)}.scores WHERE org_id = ${quote(orgId)}`,
      format: 'JSONEachRow',
    });
    expect(Number((await rs.json<{ n: string }>())[0]!.n)).toBe(1);
    await ch.close();

    expect((await fetch(`${url}/metrics`, { method: 'POST' })).status).toBe(405);
    expect((await fetch(`${url}/nope`)).status).toBe(404);
  });
});

describe('refresher metrics and health', () => {
  // Its own queue and snapshots, where the refresher's Redis user may write (frs-<name>, frs:cap:<name>).
  const prefix = `frs-ops-it-${process.pid}`;
  const capPrefix = `frs:cap:ops-it-${process.pid}`;
  let refresher: Service;
  let url: string;

  beforeAll(async () => {
    ({ svc: refresher, url } = await startWithMetrics(
      'services/refresher/main.ts',
      'REFRESHER_METRICS_PORT',
      {
        CAPABILITY_KEY_PREFIX: capPrefix,
        BULLMQ_PREFIX: prefix,
        // One source that cannot be read: its runs fail, the others succeed.
        FEED_TOR_EXITS: `/nonexistent/${randomUUID()}.txt`,
      },
    ));
  });

  afterAll(async () => {
    await refresher?.stop();
    const r = redis();
    await unlinkPrefix(r, prefix);
    await unlinkPrefix(r, capPrefix);
    r.disconnect();
  });

  it('counts runs and failures per capability and reports snapshot age against its limit', async () => {
    const s = await waitFor(
      'a failed and a successful refresh',
      async () => {
        const m = await scrape(url);
        // A capability whose own run has finished: a snapshot built at start-up (the one-shot
        // build of what Redis lacks) shows an age before the scheduled run counts.
        const ok = m.samples.find(
          (x) =>
            x.name === 'frs_refresher_snapshot_age_seconds' &&
            x.labels.capability !== 'ip_tor_exit' &&
            (sample(m, 'frs_refresher_runs_total', { task: x.labels.capability! }) ?? 0) >= 1,
        );
        // Both runs' durations too: a run is counted before its duration is observed.
        return ok &&
          (sample(m, 'frs_refresher_failures_total', { task: 'ip_tor_exit' }) ?? 0) >= 1 &&
          total(m, 'frs_refresher_run_duration_seconds_count') >= 2
          ? m
          : undefined;
      },
      90_000,
      500,
    );
    expectType(s, 'frs_refresher_runs_total', 'counter');
    expectType(s, 'frs_refresher_failures_total', 'counter');
    expectType(s, 'frs_refresher_run_duration_seconds', 'histogram');
    const refreshed = s.samples.find(
      (x) =>
        x.name === 'frs_refresher_snapshot_age_seconds' &&
        x.labels.capability !== 'ip_tor_exit' &&
        (sample(s, 'frs_refresher_runs_total', { task: x.labels.capability! }) ?? 0) >= 1,
    )!.labels.capability!;
    expect(sample(s, 'frs_refresher_runs_total', { task: refreshed })).toBeGreaterThanOrEqual(1);
    expect(sample(s, 'frs_refresher_failures_total', { task: refreshed })).toBe(0);
    expect(sample(s, 'frs_refresher_snapshot_age_seconds', { capability: refreshed })).toBeLessThan(600);
    // The age of its data, dated by the feed itself (an as-of header or the package's version).
    expect(sample(s, 'frs_refresher_data_age_seconds', { capability: refreshed })).toBeGreaterThan(0);
    expect(sample(s, 'frs_refresher_data_age_seconds', { capability: 'ip_tor_exit' })).toBeUndefined();
    expect(sample(s, 'frs_refresher_max_data_age_seconds', { capability: 'ip_tor_exit' })).toBeGreaterThan(0);
    expect(
      sample(s, 'frs_refresher_consecutive_failures', { capability: 'ip_tor_exit' }),
    ).toBeGreaterThanOrEqual(1);
    // Never fetched: no age at all, rather than a made-up one.
    expect(sample(s, 'frs_refresher_snapshot_age_seconds', { capability: 'ip_tor_exit' })).toBeUndefined();
    expect(sample(s, 'frs_refresher_runs_total', { task: 'audit-retention' })).toBe(0);
    expect(
      sample(s, 'frs_refresher_snapshot_freshness_seconds', { capability: 'ip_tor_exit' }),
    ).toBeGreaterThan(0);
    expect(total(s, 'frs_refresher_run_duration_seconds_count')).toBeGreaterThanOrEqual(2);
    expect((await fetch(`${url}/livez`)).status).toBe(200);
  });
});
