/**
 * The audit sink built from config, with a bounded stop: Kafka `scores.v1` and `outcomes.v1` to
 * ClickHouse, outcomes to the reputation ledger, and organisations' list changes from Redis to
 * ClickHouse.
 */
import { LedgerVotes } from '../../shared/capabilities/ledger-votes.ts';
import { VelocityCounter } from '../../shared/capabilities/network-velocity/counter.ts';
import { SubjectKeys } from '../../shared/capabilities/subject-key.ts';
import { createClickHouse, type ClickHouseClient } from '../../shared/clients/clickhouse.ts';
import type { Kafka } from 'kafkajs';
import { createKafka, kafkaSecurity } from '../../shared/clients/kafka.ts';
import { createRedis, durableRedis } from '../../shared/clients/redis.ts';
import type { Config } from '../../shared/config.ts';
import { Resources, type Service } from '../../shared/lifecycle.ts';
import type { Logger } from '../../shared/logger.ts';
import { startMetricsServer, stopMetricsServer } from '../../shared/metrics-server.ts';
import { LedgerApplier, LedgerLearner } from './ledger-learner.ts';
import { LedgerTrust } from './ledger-trust.ts';
import { ScoresProgress } from './scores-progress.ts';
import { ConsumerState, registerLagMetric, withInsertMetrics } from './metrics.ts';
import { AuditSink } from './sink.ts';
import { ActivityWriter } from './activity.ts';
import { VelocityConsumer } from './velocity-consumer.ts';
import { ListChangesDrain } from './list-changes.ts';
import { OrgListStore } from '../../shared/orgs/lists-store.ts';

/** Stop: finish the batch in hand (its insert may be retrying against a down ClickHouse), leave the group, close. */
export const SINK_STOP_DEADLINE_MS = 10_000;

export function createAuditSink(cfg: Config, log: Logger): Service {
  const resources = new Resources();
  return {
    async start() {
      const ch = resources.add('clients', 'clickhouse', createClickHouse(cfg.CLICKHOUSE_URL), (c) =>
        c.close(),
      );
      const kafka = createKafka(cfg.KAFKA_BROKERS, 'frs-audit-sink', {
        ...kafkaSecurity(cfg),
        retry: { retries: 1_000_000, maxRetryTime: 5_000 },
      });
      const activity = cfg.AUDIT_SINK_ACTIVITY ? activityWriter(cfg, log, resources) : undefined;
      const sink = resources.add(
        'workers',
        'kafka consumer',
        new AuditSink(kafka, withInsertMetrics(ch), log, {
          groupId: cfg.AUDIT_SINK_GROUP,
          database: cfg.CLICKHOUSE_DATABASE,
          maxBackoffMs: 5_000,
          // Compressed bytes: 1 MiB of gzipped batches is a few thousand rows.
          minBytes: 1024 * 1024,
          maxWaitMs: 1_000,
          ...(activity && { onScores: (records) => activity.write(records) }),
        }),
        (s) => s.stop(),
      );
      const learner = ledgerLearner(cfg, log, resources, kafka, ch);
      const velocity = cfg.AUDIT_SINK_VELOCITY ? velocityConsumer(cfg, log, resources, kafka) : undefined;
      if (cfg.AUDIT_SINK_LIST_CHANGES) listChanges(cfg, log, resources, ch).start();
      const consumerState = new ConsumerState();
      consumerState.watch(sink.consumer);
      // Lag reads use a client of their own that gives up quickly: a scrape must not wait out an outage.
      const lagKafka = createKafka(cfg.KAFKA_BROKERS, 'frs-audit-sink-lag', kafkaSecurity(cfg));
      resources.add('clients', 'lag reader', registerLagMetric(lagKafka, cfg.AUDIT_SINK_GROUP, log), (l) =>
        l.close(),
      );
      resources.add(
        'intake',
        'metrics server',
        await startMetricsServer({
          port: cfg.AUDIT_SINK_METRICS_PORT,
          host: cfg.HOST,
          ready: () => consumerState.readiness(),
          log,
        }),
        stopMetricsServer,
      );
      log.info({ topics: ['scores.v1', 'outcomes.v1'] }, 'audit sink connecting');
      await Promise.all([sink.start(), learner.start(), velocity?.start()]);
    },
    stop: () => resources.closeAll(log, Date.now() + SINK_STOP_DEADLINE_MS),
  };
}

/** The portal's Activity lists and day counts, written from the sink's batches (activity.ts). */
function activityWriter(cfg: Config, log: Logger, resources: Resources): ActivityWriter {
  const redis = resources.add(
    'clients',
    'activity redis',
    // Fail fast: a Redis that is away costs the page some scores, never the pipeline a wait.
    createRedis(durableRedis(cfg), { connectionName: 'frs-sink-activity', failFast: true, log }),
    (r) => r.disconnect(),
  );
  const writer = new ActivityWriter(redis, log);
  writer.start();
  return resources.add('workers', 'activity writer', writer, (w) => w.stop());
}

/** Organisations' list changes from their outbox streams in Redis to ClickHouse (list-changes.ts). */
function listChanges(cfg: Config, log: Logger, resources: Resources, ch: ClickHouseClient): ListChangesDrain {
  const redis = resources.add(
    'clients',
    'list changes redis',
    createRedis(durableRedis(cfg), { connectionName: 'frs-sink-list-changes', log }),
    (r) => r.disconnect(),
  );
  return resources.add(
    'workers',
    'list changes drain',
    new ListChangesDrain({
      store: new OrgListStore(redis),
      ch: withInsertMetrics(ch),
      database: cfg.CLICKHOUSE_DATABASE,
      log,
    }),
    (d) => d.stop(),
  );
}

/**
 * Outcomes to the reputation ledger, in a consumer group of its own; trust is decided against the
 * scored subjects in ClickHouse once the sink's group has caught up (ledger-trust.ts).
 */
function ledgerLearner(
  cfg: Config,
  log: Logger,
  resources: Resources,
  kafka: Kafka,
  ch: ClickHouseClient,
): LedgerLearner {
  const ledgerRedis = resources.add(
    'clients',
    'ledger redis',
    createRedis(durableRedis(cfg, cfg.LEDGER_REDIS_URL ?? cfg.REDIS_URL), {
      connectionName: 'frs-ledger-learner',
      log,
    }),
    (r) => r.disconnect(),
  );
  const progress = resources.add(
    'clients',
    'scores progress',
    new ScoresProgress(kafka, cfg.AUDIT_SINK_GROUP),
    (p) => p.close(),
  );
  return resources.add(
    'workers',
    'ledger learner',
    new LedgerLearner({
      kafka,
      applier: new LedgerApplier({
        votes: new LedgerVotes(ledgerRedis, cfg.CAPABILITY_KEY_PREFIX, cfg.LEDGER_WRITES_PER_ORG_MONTH),
        keys: SubjectKeys.fromConfig(cfg),
        trust: new LedgerTrust({ ch, database: cfg.CLICKHOUSE_DATABASE, progress }),
      }),
      log,
      groupId: `${cfg.AUDIT_SINK_GROUP}-ledger`,
    }),
    (l) => l.stop(),
  );
}

/**
 * Network velocity counted from the scores, in a consumer group of its own, into the ledger Redis
 * beside the votes (shared/capabilities/network-velocity/counter.ts); the refresher publishes it.
 */
function velocityConsumer(cfg: Config, log: Logger, resources: Resources, kafka: Kafka): VelocityConsumer {
  const redis = resources.add(
    'clients',
    'velocity redis',
    createRedis(durableRedis(cfg, cfg.LEDGER_REDIS_URL ?? cfg.REDIS_URL), {
      connectionName: 'frs-velocity-counter',
      log,
    }),
    (r) => r.disconnect(),
  );
  return resources.add(
    'workers',
    'velocity consumer',
    new VelocityConsumer({
      kafka,
      counter: new VelocityCounter(
        redis,
        cfg.CAPABILITY_KEY_PREFIX,
        SubjectKeys.fromConfig(cfg),
        cfg.VELOCITY_EXCLUDED_ORGS,
      ),
      log,
      groupId: `${cfg.AUDIT_SINK_GROUP}-velocity`,
    }),
    (v) => v.stop(),
  );
}
