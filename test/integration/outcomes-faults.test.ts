import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OUTCOMES_TOPIC } from '../../shared/clients/kafka.ts';
import { startFaultPipeline, type FaultPipeline } from '../helpers/fault-pipeline.ts';
import { orgWithKey } from '../../infra/harness/fixtures.ts';
import { scoreTopicLag } from '../../infra/harness/kafka-records.ts';
import { holdLoadUntilAnswered, steadyOutcomeStream, type StreamResult } from '../../infra/harness/stream.ts';
import { waitFor } from '../../infra/harness/wait.ts';

/**
 * The outcome pipeline on a private Kafka and ClickHouse, under the faults the score pipeline is
 * tested against (audit-faults.test.ts): every 202 from POST /v1/outcomes ends up exactly once in
 * `outcomes`, whatever was down.
 */
const DB = 'frs_fault_outcomes';
const SINK_GROUP = 'frs-fault-outcomes-sink';
const RPS = 25;

describe('outcome pipeline under Kafka and ClickHouse faults', { timeout: 180_000 }, () => {
  let pipeline: FaultPipeline;

  beforeAll(async () => {
    pipeline = await startFaultPipeline('outcomes', DB, SINK_GROUP);
  });

  afterAll(async () => {
    await pipeline?.down();
  });

  async function stored(orgId: string) {
    const rs = await pipeline.stack.ch.query({
      query: `SELECT outcome_id FROM ${DB}.outcomes FINAL WHERE org_id = '${orgId}'`,
      format: 'JSONEachRow',
    });
    return (await rs.json<{ outcome_id: string }>()).map((r) => r.outcome_id);
  }

  /** Every 202 once: the FINAL set equals the accepted ids, and no id has a second raw row. */
  async function expectExactlyOnce(orgId: string, results: StreamResult[]) {
    const ids = results.filter((r) => r.status === 202).map((r) => r.outcomeId!);
    expect(ids.length).toBeGreaterThan(RPS * 2);
    expect(results.filter((r) => r.status !== 202)).toEqual([]);
    await pipeline.withSinkLog(
      waitFor(
        'every 202 outcome in ClickHouse',
        async () => (await stored(orgId)).length >= ids.length,
        90_000,
        500,
      ),
    );
    await pipeline.withSinkLog(
      waitFor(
        'the sink to commit all of outcomes.v1',
        async () => (await scoreTopicLag([pipeline.stack.kafkaBrokers], SINK_GROUP, OUTCOMES_TOPIC)) === 0,
        60_000,
        500,
      ),
    );
    const rows = await stored(orgId);
    expect(rows.length).toBe(ids.length);
    expect(new Set(rows)).toEqual(new Set(ids));
    const rs = await pipeline.stack.ch.query({
      query: `SELECT uniqExact(outcome_id) AS distinct, count() AS raw,
                     countIf(inserted_at < received_at) AS unstamped
              FROM ${DB}.outcomes WHERE org_id = '${orgId}'`,
      format: 'JSONEachRow',
    });
    const [row] = await rs.json<{ distinct: string; raw: string; unstamped: string }>();
    expect(Number(row!.distinct)).toBe(ids.length);
    expect(row!.unstamped).toBe('0');
  }

  it('Kafka down: outcomes keep their 202, the journal replays, each lands once', async () => {
    const org = await orgWithKey('verify', { rateRps: 1000 });
    const api = await pipeline.node(pipeline.journalRoot());
    try {
      const stream = steadyOutcomeStream(() => api.url, org.apiKey, RPS);
      // Waits for the outcome publisher to spill, then to replay and send directly again (its /metrics).
      await pipeline.kafkaOutage(api, stream, RPS, 'outcomes');
      await expectExactlyOnce(org.orgId, await stream.stop());
    } finally {
      await api.stop();
    }
  });

  it('ClickHouse down: the sink waits and retries, each outcome lands once', async () => {
    const org = await orgWithKey('assess', { rateRps: 1000 });
    const api = await pipeline.node(pipeline.journalRoot());
    try {
      const stream = steadyOutcomeStream(() => api.url, org.apiKey, RPS);
      await pipeline.clickhouseOutage(stream, RPS);
      await expectExactlyOnce(org.orgId, await stream.stop());
      expect(pipeline.sink.output()).toContain('clickhouse insert failed; retrying');
    } finally {
      await api.stop();
    }
  });

  it('SIGTERM loses nothing: flushed when Kafka is up, journalled and replayed when it is down', async () => {
    const org = await orgWithKey('bureau', { rateRps: 1000 });
    const root = pipeline.journalRoot();
    let api = await pipeline.node(root);
    let stream = steadyOutcomeStream(() => api.url, org.apiKey, RPS);
    await holdLoadUntilAnswered(stream, RPS * 2);
    expect(await api.stop('SIGTERM')).toBe(0);
    const up = await stream.stop();

    api = await pipeline.node(root);
    stream = steadyOutcomeStream(() => api.url, org.apiKey, RPS);
    await holdLoadUntilAnswered(stream, RPS);
    await pipeline.stack.kafka('stop');
    await pipeline.untilPublisher(api, 'outcomes', 'spilling');
    await holdLoadUntilAnswered(stream, RPS);
    expect(await api.stop('SIGTERM')).toBe(0);
    const down = await stream.stop();
    expect(pipeline.segments(root, 'outcomes').length).toBeGreaterThan(0);

    await pipeline.stack.kafka('start');
    api = await pipeline.node(root);
    try {
      // Requests cut off by the stop itself are not 202s and owe nothing.
      await expectExactlyOnce(
        org.orgId,
        [...up, ...down].filter((r) => r.status !== 0),
      );
      await waitFor('outcome journal drained', async () => pipeline.segments(root, 'outcomes').length === 0);
    } finally {
      await api.stop();
    }
  });
});
