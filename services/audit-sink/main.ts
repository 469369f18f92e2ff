/**
 * Composition root of the audit sink: Kafka `scores.v1` and `outcomes.v1` to ClickHouse, and
 * outcomes to the reputation ledger.
 */
import { LedgerReports } from '../../shared/capabilities/ledger-reports.ts';
import { createClickHouse } from '../../shared/clients/clickhouse.ts';
import { createKafka } from '../../shared/clients/kafka.ts';
import { createRedis } from '../../shared/clients/redis.ts';
import { loadConfig } from '../../shared/config.ts';
import { createLogger } from '../../shared/logger.ts';
import { handleShutdown } from '../../shared/shutdown.ts';
import { LedgerLearner } from './ledger-learner.ts';
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
  retry: { retries: 1_000_000, maxRetryTime: 5_000 },
});
const sink = new AuditSink(kafka, ch, log, {
  groupId: cfg.AUDIT_SINK_GROUP,
  database: cfg.CLICKHOUSE_DATABASE,
  maxBackoffMs: 5_000,
  // Compressed bytes: 1 MiB of gzipped batches is a few thousand rows.
  minBytes: 1024 * 1024,
  maxWaitMs: 1_000,
});
const ledgerRedis = createRedis(cfg.LEDGER_REDIS_URL ?? cfg.REDIS_URL, {
  connectionName: 'frs-ledger-learner',
});
const learner = new LedgerLearner(
  kafka,
  new LedgerReports(ledgerRedis, cfg.CAPABILITY_KEY_PREFIX),
  log,
  `${cfg.AUDIT_SINK_GROUP}-ledger`,
);
await Promise.all([sink.start(), learner.start()]);
log.info('audit sink consuming');

handleShutdown(log, async () => {
  await Promise.all([sink.stop(), learner.stop()]);
  await ch.close();
  ledgerRedis.disconnect();
});
