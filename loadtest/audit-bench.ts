/**
 * Audit pipeline benchmark on a private local Kafka and ClickHouse (never the shared ones).
 *
 *   node loadtest/audit-bench.ts [--rps 300] [--seconds 20] [--backlog 100000]
 *
 * 1. End-to-end lag: a steady stream of scores over HTTP through an API node; each score_id is
 *    timed from its UUIDv7 time (when it was scored) to the first poll (every 50 ms) that finds its
 *    row in ClickHouse. Reports p50/p99/max and the live insert rate.
 * 2. Sustained insert rate: with the sink stopped, `--backlog` real-sized records go to Kafka;
 *    then the sink drains them. Reports rows/s from the first row to the last.
 * Needs the shared Redis (for the API's keys) and the Kafka jars of `npm run stack:up`.
 */
import { parseArgs } from 'node:util';
import { CompressionTypes } from 'kafkajs';
import { createKafka, SCORES_TOPIC } from '../shared/clients/kafka.ts';
import { newScoreId, scoreIdTime } from '../shared/ids.ts';
import { orgWithKey } from '../infra/harness/fixtures.ts';
import { sleep } from '../infra/harness/wait.ts';
import { startPrivateStack } from '../infra/harness/private-stack.ts';
import { startApi, startSink, waitFor } from '../infra/harness/processes.ts';
import { auditRecordTemplate } from './audit-template.ts';
import { steadyStream } from '../infra/harness/stream.ts';
import { publishSnapshots } from '../infra/harness/snapshots.ts';

const { values: args } = parseArgs({
  options: {
    rps: { type: 'string', default: '300' },
    seconds: { type: 'string', default: '20' },
    backlog: { type: 'string', default: '100000' },
  },
});
const RPS = Number(args.rps);
const SECONDS = Number(args.seconds);
const BACKLOG = Number(args.backlog);
const DB = 'frs_bench';

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

// The backlog's record, scored in-process before anything starts (its org_id is replaced below).
const template = auditRecordTemplate('org_template');
const stack = await startPrivateStack('bench', DB);
// API nodes build no snapshot: publish the ones Redis lacks first, as a deployment does.
await publishSnapshots();
const sinkEnv = { ...stack.env, AUDIT_SINK_GROUP: 'frs-bench-sink', LOG_LEVEL: 'error' };
let sink = startSink(sinkEnv);
const api = await startApi({ ...stack.env, AUDIT_JOURNAL_DIR: `${stack.dir}/journal`, LOG_LEVEL: 'error' });
try {
  // --- 1. end-to-end lag under a steady stream ---
  const org = await orgWithKey('bureau', { rateRps: 100_000, credits: 100_000_000 });
  const seenAt = new Map<string, number>();
  let polling = true;
  let pollError: unknown;
  const poller = (async () => {
    // Rows inserted since shortly before the previous successful poll (inserted_at has seconds).
    let since = Math.floor(Date.now() / 1000) - 2;
    while (polling) {
      const pollStart = Math.floor(Date.now() / 1000) - 2;
      const rs = await stack.ch.query({
        query: `SELECT score_id FROM ${DB}.scores WHERE org_id = '${org.orgId}' AND inserted_at >= toDateTime(${since})`,
        format: 'JSONEachRow',
      });
      const now = Date.now();
      for (const { score_id } of await rs.json<{ score_id: string }>())
        if (!seenAt.has(score_id)) seenAt.set(score_id, now);
      since = pollStart;
      await sleep(50);
    }
  })().catch((err) => {
    pollError = err;
  });
  const stream = steadyStream(() => api.url, org.apiKey, RPS);
  await sleep(SECONDS * 1000);
  const results = await stream.stop();
  const ids = results.filter((x) => x.status === 200).map((x) => x.scoreId!);
  // A lag measured over part of the stream is no figure: any other status fails the bench.
  if (ids.length !== results.length || ids.length === 0) {
    const statuses = [...new Set(results.map((x) => x.status))].join(', ');
    throw new Error(
      `the stream got ${results.length - ids.length} of ${results.length} answers not 200 (${statuses})`,
    );
  }
  await waitFor(
    'every streamed score in ClickHouse',
    async () => {
      if (pollError) throw pollError;
      return ids.every((id) => seenAt.has(id));
    },
    120_000,
    200,
  );
  polling = false;
  await poller;
  const lags = ids.map((id) => seenAt.get(id)! - scoreIdTime(id)!).sort((a, b) => a - b);
  const seen = ids.map((id) => seenAt.get(id)!).sort((a, b) => a - b);
  const httpLat = results.map((x) => x.latencyMs).sort((a, b) => a - b);
  console.log(
    JSON.stringify({
      stage: 'end_to_end_lag',
      offered_rps: RPS,
      seconds: SECONDS,
      scores_200: ids.length,
      non_200: results.length - ids.length,
      http_p50_ms: +quantile(httpLat, 0.5).toFixed(1),
      http_p99_ms: +quantile(httpLat, 0.99).toFixed(1),
      lag_p50_ms: quantile(lags, 0.5),
      lag_p99_ms: quantile(lags, 0.99),
      lag_max_ms: lags[lags.length - 1],
      live_rows_per_s: Math.round((ids.length / (seen[seen.length - 1]! - seen[0]!)) * 1000),
    }),
  );

  // --- 2. sustained insert rate draining a backlog ---
  await sink.stop();
  const backlogOrg = `org_bench${Date.now().toString(16).padStart(11, '0')}`;
  const producer = createKafka([stack.kafkaBrokers], 'frs-bench').producer({
    idempotent: true,
    maxInFlightRequests: 1,
  });
  await producer.connect();
  let bytes = 0;
  for (let i = 0; i < BACKLOG; i += 1000) {
    const messages = Array.from({ length: Math.min(1000, BACKLOG - i) }, () => {
      const ms = Date.now();
      const id = newScoreId(ms);
      const value = JSON.stringify({
        ...template,
        score_id: id,
        org_id: backlogOrg,
        scored_at: new Date(ms).toISOString(),
        scored_at_ms: ms,
        response: { ...template.response, score_id: id },
      });
      bytes += value.length;
      return { key: id, value };
    });
    // gzip like the API's publisher: it also keeps 1,000 records under the broker's message limit.
    await producer.sendBatch({
      acks: -1,
      compression: CompressionTypes.GZIP,
      topicMessages: [{ topic: SCORES_TOPIC, messages }],
    });
  }
  await producer.disconnect();
  const count = async () => {
    const rs = await stack.ch.query({
      query: `SELECT count() AS n FROM ${DB}.scores WHERE org_id = '${backlogOrg}'`,
      format: 'JSONEachRow',
    });
    return Number((await rs.json<{ n: string }>())[0]!.n);
  };
  sink = startSink(sinkEnv);
  const t0 = Date.now();
  let firstAt = 0;
  await waitFor(
    'the backlog drained',
    async () => {
      const n = await count();
      if (n > 0 && !firstAt) firstAt = Date.now();
      return n >= BACKLOG;
    },
    600_000,
    100,
  );
  const doneAt = Date.now();
  console.log(
    JSON.stringify({
      stage: 'sustained_insert',
      rows: BACKLOG,
      avg_record_bytes: Math.round(bytes / BACKLOG),
      sink_start_to_first_row_ms: firstAt - t0,
      drain_ms: doneAt - firstAt,
      // From sink start: includes joining the group and the first fetch, so it understates the
      // steady rate; first-to-last row overstates it when a few large inserts land together.
      rows_per_s_from_sink_start: Math.round((BACKLOG / (doneAt - t0)) * 1000),
      rows_per_s_first_to_last_row: Math.round((BACKLOG / Math.max(1, doneAt - firstAt)) * 1000),
    }),
  );
} finally {
  await api.stop();
  await sink.stop();
  await stack.down();
}
