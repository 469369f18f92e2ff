/** Composition root of the audit sink: Kafka `scores.v1` to ClickHouse `scores`. */
import { createClickHouse } from '../../shared/clients/clickhouse.ts';
import { createKafka, kafkaSecurity } from '../../shared/clients/kafka.ts';
import { loadConfig } from '../../shared/config.ts';
import { createLogger } from '../../shared/logger.ts';
import { startMetricsServer, stopMetricsServer } from '../../shared/metrics-server.ts';
import { handleShutdown } from '../../shared/shutdown.ts';
import { ConsumerState, registerLagMetric, withInsertMetrics } from './metrics.ts';
import { AuditSink } from './sink.ts';

let cfg;
try {
  cfg = loadConfig();
} catch (err) {
  console.error(`audit-sink: ${(err as Error).message}`);
  process.exit(2);
}
const log = createLogger('audit-sink', cfg.LOG_LEVEL);
const ch = createClickHouse(cfg.CLICKHOUSE_URL);
const kafka = createKafka(cfg.KAFKA_BROKERS, 'frs-audit-sink', {
  ...kafkaSecurity(cfg),
  retry: { retries: 1_000_000, maxRetryTime: 5_000 },
});
const sink = new AuditSink(kafka, withInsertMetrics(ch), log, {
  groupId: cfg.AUDIT_SINK_GROUP,
  database: cfg.CLICKHOUSE_DATABASE,
  maxBackoffMs: 5_000,
  // Compressed bytes: 1 MiB of gzipped batches is a few thousand rows.
  minBytes: 1024 * 1024,
  maxWaitMs: 1_000,
});
const consumerState = new ConsumerState();
consumerState.watch(sink.consumer);
// Lag reads use a client of their own that gives up quickly: a scrape must not wait out an outage.
const lag = registerLagMetric(
  createKafka(cfg.KAFKA_BROKERS, 'frs-audit-sink-lag', kafkaSecurity(cfg)),
  cfg.AUDIT_SINK_GROUP,
  log,
);
const metricsServer = await startMetricsServer({
  port: cfg.AUDIT_SINK_METRICS_PORT,
  host: cfg.HOST,
  ready: () => consumerState.readiness(),
  log,
});
await sink.start();
log.info('audit sink consuming');

handleShutdown(log, async () => {
  await sink.stop();
  await lag.close();
  await stopMetricsServer(metricsServer);
  await ch.close();
});
