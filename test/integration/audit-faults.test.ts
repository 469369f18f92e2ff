import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFaultPipeline, type FaultPipeline } from '../helpers/fault-pipeline.ts';
import { orgWithKey } from '../../infra/harness/fixtures.ts';
import { scoreTopicLag } from '../../infra/harness/kafka-records.ts';
import { holdLoadUntilAnswered, steadyStream, type StreamResult } from '../../infra/harness/stream.ts';
import { waitFor } from '../../infra/harness/wait.ts';

/**
 * Fault tests of the audit pipeline on a private Kafka and ClickHouse (never the shared ones):
 * every score answered with 200 must end up exactly once in ClickHouse, whatever was down.
 */
const DB = 'frs_fault';
const SINK_GROUP = 'frs-fault-sink';
const RPS = 50;
/**
 * Scoring is in-memory; a request that waited on Kafka would take its 2 s connection timeout at
 * least. 500 ms used to be the bound, but a two-core machine starting a JVM beside the test
 * already pauses a node for up to 650 ms (measured), a stall no code change can remove.
 */
const BUDGET_MS = 1_500;
/**
 * Seen from the test runner, which shares 2 vCPUs with a starting JVM: generous, yet a request
 * that waited on Kafka's or ClickHouse's timeouts (seconds) would still exceed it.
 */
const CLIENT_BUDGET_MS = 2_000;
/** Scores per second while a node is SIGKILLed: enough that records are always in flight. */
const KILL_RPS = 150;

// Each test stops and restarts servers and then waits up to 90 s for ClickHouse to hold every row.
describe('audit pipeline under Kafka and ClickHouse faults', { timeout: 180_000 }, () => {
  let pipeline: FaultPipeline;
  let brokers: string[];

  beforeAll(async () => {
    pipeline = await startFaultPipeline('audit', DB, SINK_GROUP);
    brokers = [pipeline.stack.kafkaBrokers];
  });

  afterAll(async () => {
    await pipeline?.down();
  });

  async function stored(orgId: string) {
    const rs = await pipeline.stack.ch.query({
      query: `SELECT score_id FROM ${DB}.scores FINAL WHERE org_id = '${orgId}'`,
      format: 'JSONEachRow',
    });
    return (await rs.json<{ score_id: string }>()).map((r) => r.score_id);
  }

  /** Rows in ClickHouse counted without FINAL collapsing: re-delivery may add raw rows. */
  async function distinctAndFinal(orgId: string) {
    const rs = await pipeline.stack.ch.query({
      query: `SELECT (SELECT uniqExact(score_id) FROM ${DB}.scores WHERE org_id = '${orgId}') AS distinct,
                     (SELECT count() FROM ${DB}.scores FINAL WHERE org_id = '${orgId}') AS final`,
      format: 'JSONEachRow',
    });
    const [row] = await rs.json<{ distinct: string; final: string }>();
    return { distinct: Number(row!.distinct), final: Number(row!.final) };
  }

  function accepted(results: StreamResult[]): string[] {
    return results.filter((r) => r.status === 200).map((r) => r.scoreId!);
  }

  async function expectExactlyOnce(orgId: string, ids: string[]) {
    await waitFor(
      'every 200 score in ClickHouse',
      async () => (await stored(orgId)).length >= ids.length,
      90_000,
      500,
    );
    const rows = await stored(orgId);
    expect(rows.length).toBe(ids.length);
    expect(new Set(rows)).toEqual(new Set(ids));
    expect(await distinctAndFinal(orgId)).toEqual({ distinct: ids.length, final: ids.length });
    // The sink stamps when it wrote each row (18.16 would leave an omitted column at zero).
    const rs = await pipeline.stack.ch.query({
      query: `SELECT countIf(inserted_at < scored_at) AS bad FROM ${DB}.scores WHERE org_id = '${orgId}'`,
      format: 'JSONEachRow',
    });
    expect((await rs.json<{ bad: string }>())[0]!.bad).toBe('0');
  }

  function expectServedWithinBudget(results: StreamResult[]) {
    expect(results.length).toBeGreaterThan(RPS * 4);
    expect(results.filter((r) => r.status !== 200)).toEqual([]);
    expect(Math.max(...results.map((r) => r.serverLatencyMs!))).toBeLessThan(BUDGET_MS);
    expect(Math.max(...results.map((r) => r.latencyMs))).toBeLessThan(CLIENT_BUDGET_MS);
  }

  it('Kafka down during a steady stream: scores keep 200, the journal replays, each lands once', async () => {
    const org = await orgWithKey('bureau', { rateRps: 1000, credits: 1_000_000 });
    const api = await pipeline.node(pipeline.journalRoot());
    try {
      const stream = steadyStream(() => api.url, org.apiKey, RPS);
      // Waits for the publisher to spill, then to replay and send directly again (its /metrics).
      await pipeline.kafkaOutage(api, stream, RPS, 'scores');
      const results = await stream.stop();
      expectServedWithinBudget(results);
      await expectExactlyOnce(org.orgId, accepted(results));
    } finally {
      await api.stop();
    }
  });

  it('ClickHouse down during a steady stream: the sink waits and retries, each score lands once', async () => {
    const org = await orgWithKey('bureau', { rateRps: 1000, credits: 1_000_000 });
    const api = await pipeline.node(pipeline.journalRoot());
    try {
      const stream = steadyStream(() => api.url, org.apiKey, RPS);
      await pipeline.clickhouseOutage(stream, RPS);
      const results = await stream.stop();
      expectServedWithinBudget(results);
      await expectExactlyOnce(org.orgId, accepted(results));
      expect(pipeline.sink.output()).toContain('clickhouse insert failed; retrying');
    } finally {
      await api.stop();
    }
  });

  it('SIGTERM loses nothing: flushed to Kafka when up, journalled and replayed at next start when down', async () => {
    const org = await orgWithKey('bureau', { rateRps: 1000, credits: 1_000_000 });
    const root = pipeline.journalRoot();

    let api = await pipeline.node(root);
    let stream = steadyStream(() => api.url, org.apiKey, RPS);
    await holdLoadUntilAnswered(stream, RPS * 2);
    expect(await api.stop('SIGTERM')).toBe(0);
    const upResults = await stream.stop();

    api = await pipeline.node(root);
    stream = steadyStream(() => api.url, org.apiKey, RPS);
    await holdLoadUntilAnswered(stream, RPS);
    await pipeline.stack.kafka('stop');
    await pipeline.untilPublisher(api, 'scores', 'spilling');
    await holdLoadUntilAnswered(stream, RPS);
    expect(await api.stop('SIGTERM')).toBe(0);
    const downResults = await stream.stop();
    expect(pipeline.segments(root).length).toBeGreaterThan(0);

    await pipeline.stack.kafka('start');
    api = await pipeline.node(root);
    try {
      await expectExactlyOnce(org.orgId, [...accepted(upResults), ...accepted(downResults)]);
      await waitFor('journal drained', async () => pipeline.segments(root).length === 0);
    } finally {
      await api.stop();
    }
  });

  it('SIGKILL under load loses nothing it answered: every 200 lands exactly once after restart', async () => {
    const org = await orgWithKey('bureau', { rateRps: 1000, credits: 1_000_000 });
    const root = pipeline.journalRoot();
    const results: StreamResult[] = [];

    // Kafka up: a 200 left only once Kafka acknowledged its record or the journal fsynced it.
    let api = await pipeline.node(root);
    let stream = steadyStream(() => api.url, org.apiKey, KILL_RPS);
    await holdLoadUntilAnswered(stream, KILL_RPS * 2);
    await api.stop('SIGKILL');
    results.push(...(await stream.stop()));

    // Kafka down: every 200 was fsynced to the journal first.
    api = await pipeline.node(root);
    stream = steadyStream(() => api.url, org.apiKey, KILL_RPS);
    await holdLoadUntilAnswered(stream, KILL_RPS / 2);
    await pipeline.stack.kafka('stop');
    await pipeline.untilPublisher(api, 'scores', 'spilling');
    await holdLoadUntilAnswered(stream, KILL_RPS);
    await api.stop('SIGKILL');
    results.push(...(await stream.stop()));
    expect(pipeline.segments(root).length).toBeGreaterThan(0);

    // The same NODE_ID replays what the killed runs journalled.
    await pipeline.stack.kafka('start');
    api = await pipeline.node(root);
    try {
      await waitFor('journal drained', async () => pipeline.segments(root).length === 0, 60_000, 250);
      // Not "the row count stopped moving": a sink still reconnecting to the restarted broker
      // holds the count still too. Zero committed lag means ClickHouse has all Kafka has.
      await waitFor(
        'the sink to catch up',
        async () => (await scoreTopicLag(brokers, SINK_GROUP)) === 0,
        90_000,
        500,
      );
      const ids = accepted(results);
      expect(ids.length).toBeGreaterThan(KILL_RPS);
      const rows = new Set(await stored(org.orgId));
      const lost = ids.filter((id) => !rows.has(id));
      expect(lost).toEqual([]);
      // A request cut off by the kill may have had its record made durable without its answer
      // reaching the caller: stored, never answered. Nothing else may be there.
      const cutOff = results.filter((r) => r.status !== 200).length;
      expect(rows.size - ids.length).toBeLessThanOrEqual(cutOff);
      expect(await distinctAndFinal(org.orgId)).toEqual({ distinct: rows.size, final: rows.size });
    } finally {
      await api.stop();
    }
  });
});
