/**
 * Prometheus metrics of the audit sink, in prom-client's default registry (served by
 * shared/metrics-server.ts): consumer lag per partition, rows inserted, insert failures, insert
 * and batch durations, and whether the consumer is in its group. DLQ records: dlq-metrics.ts.
 */
import type { Consumer, Kafka } from 'kafkajs';
import { Counter, Gauge, Histogram } from 'prom-client';
import type { ClickHouseClient } from '../../shared/clients/clickhouse.ts';
import { SCORES_TOPIC } from '../../shared/clients/kafka.ts';
import type { Logger } from '../../shared/logger.ts';
import { within } from '../../shared/metrics-server.ts';

const rowsInserted = new Counter({
  name: 'frs_sink_rows_inserted_total',
  help: 'Rows ClickHouse accepted from the sink',
});
const insertFailures = new Counter({
  name: 'frs_sink_insert_failures_total',
  help: 'ClickHouse inserts that failed (each is retried with backoff)',
});
const insertDuration = new Histogram({
  name: 'frs_sink_insert_duration_seconds',
  help: 'Duration of one ClickHouse insert, successful or not',
  buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
});
const batchDuration = new Histogram({
  name: 'frs_sink_batch_duration_seconds',
  help: 'Duration of one consumed batch: decode, DLQ, insert (with retries), offset commit',
  labelNames: ['partition'],
  buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
});
const batchRecords = new Histogram({
  name: 'frs_sink_batch_records',
  help: 'Records in one consumed batch',
  buckets: [1, 10, 100, 500, 1_000, 2_500, 5_000, 10_000, 25_000],
});

/** The consumer group's state as kafkajs reports it: joined once it has partitions to consume. */
export class ConsumerState {
  joined = false;
  crashed: string | undefined;

  watch(consumer: Consumer): void {
    const e = consumer.events;
    consumer.on(e.GROUP_JOIN, () => {
      this.joined = true;
      this.crashed = undefined;
    });
    consumer.on(e.CRASH, (ev) => {
      this.joined = false;
      this.crashed = String(ev.payload.error);
    });
    consumer.on(e.STOP, () => (this.joined = false));
    consumer.on(e.END_BATCH_PROCESS, (ev) => {
      batchDuration.observe({ partition: String(ev.payload.partition) }, ev.payload.duration / 1000);
      batchRecords.observe(ev.payload.batchSize);
    });
  }

  readiness(): { ready: boolean; reason?: string } {
    if (this.joined) return { ready: true };
    return { ready: false, reason: this.crashed ? `consumer crashed: ${this.crashed}` : 'joining group' };
  }
}

/** Wraps `insert` of a ClickHouse client to count rows, failures and durations; the rest is unchanged. */
export function withInsertMetrics(ch: ClickHouseClient): ClickHouseClient {
  const insert: ClickHouseClient['insert'] = async (params) => {
    const end = insertDuration.startTimer();
    try {
      const result = await ch.insert(params);
      if (Array.isArray(params.values)) rowsInserted.inc(params.values.length);
      return result;
    } catch (err) {
      insertFailures.inc();
      throw err;
    } finally {
      end();
    }
  };
  return new Proxy(ch, {
    get: (target, prop, receiver) => (prop === 'insert' ? insert : Reflect.get(target, prop, receiver)),
  });
}

/**
 * Lag of the consumer group on `scores.v1`, per partition, read from the brokers at scrape time:
 * the newest offset minus the group's committed offset. So it counts records not yet in
 * ClickHouse whatever the sink is doing (stuck in retries, crashed, or one of several replicas),
 * including partitions no consumer holds. Every sink replica reports the same group figure.
 *
 * `kafka` should retry briefly (not the consumer's retry-forever client): a scrape during an
 * outage gives up after a few seconds, and at most one read is in flight.
 */
export function registerLagMetric(
  kafka: Kafka,
  groupId: string,
  log: Logger,
): { close: () => Promise<void> } {
  const admin = kafka.admin();
  let connected: Promise<void> | undefined;
  let inflight: Promise<Map<number, number>> | undefined;
  const read = async (): Promise<Map<number, number>> => {
    connected ??= admin.connect().catch((err: unknown) => {
      connected = undefined;
      throw err;
    });
    await connected;
    const [ends, committed] = await Promise.all([
      admin.fetchTopicOffsets(SCORES_TOPIC),
      admin.fetchOffsets({ groupId, topics: [SCORES_TOPIC] }),
    ]);
    const done = new Map(committed[0]?.partitions.map((p) => [p.partition, BigInt(p.offset)]));
    const lag = new Map<number, number>();
    for (const p of ends) {
      const at = done.get(p.partition) ?? -1n;
      // -1: nothing committed yet, so everything still on the partition is behind.
      const behind = BigInt(p.high) - (at < 0n ? BigInt(p.low) : at);
      lag.set(p.partition, Number(behind > 0n ? behind : 0n));
    }
    return lag;
  };
  const lagErrors = new Counter({
    name: 'frs_sink_lag_read_failures_total',
    help: 'Scrapes that could not read the consumer lag from the brokers',
  });
  new Gauge({
    name: 'frs_sink_consumer_lag_records',
    help: 'Records of scores.v1 not yet committed by the sink group, per partition',
    labelNames: ['topic', 'partition'],
    async collect() {
      this.reset();
      try {
        inflight ??= read().finally(() => (inflight = undefined));
        for (const [partition, lag] of await within(inflight, 5_000)) {
          this.set({ topic: SCORES_TOPIC, partition: String(partition) }, lag);
        }
      } catch (err) {
        lagErrors.inc();
        log.warn({ err }, 'could not read consumer lag');
      }
    },
  });
  return { close: () => admin.disconnect() };
}
