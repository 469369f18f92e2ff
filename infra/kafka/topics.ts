/**
 * Creates the Kafka topics the services use, and reconciles existing ones with the configured
 * replication factor, min ISR, partitions and retention. Run by `stack.sh up` and usable against
 * any cluster: `KAFKA_BROKERS=host:9092 KAFKA_REPLICATION_FACTOR=3 KAFKA_MIN_INSYNC_REPLICAS=2
 * node infra/kafka/topics.ts`.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import kafkajs, { type Admin, type KafkaConfig } from 'kafkajs';
import { loadConfig } from '../../shared/config.ts';
import {
  createKafka,
  kafkaSecurity,
  OUTCOMES_DLQ_TOPIC,
  OUTCOMES_TOPIC,
  SCORES_DLQ_TOPIC,
  SCORES_TOPIC,
} from '../../shared/clients/kafka.ts';
import { planTopic, type TopicSpec, type TopicState } from './topic-plan.ts';

/** Copies per partition, and how many must hold a record before an acks=all write succeeds. */
export interface Durability {
  replicationFactor: number;
  minInsyncReplicas: number;
}

/** One broker, as on the local stack. */
const SINGLE_NODE: Durability = { replicationFactor: 1, minInsyncReplicas: 1 };

/** A topic spec: partitions bound the audit sink's parallelism; retention covers a long sink outage. */
export function topicSpec(
  topic: string,
  numPartitions: number,
  retentionDays: number,
  d: Durability,
): TopicSpec {
  return {
    topic,
    numPartitions,
    replicationFactor: d.replicationFactor,
    configEntries: [
      { name: 'retention.ms', value: String(retentionDays * 24 * 3600 * 1000) },
      { name: 'min.insync.replicas', value: String(d.minInsyncReplicas) },
    ],
  };
}

export function topicSpecs(d: Durability = SINGLE_NODE): TopicSpec[] {
  return [
    topicSpec(SCORES_TOPIC, 3, 7, d),
    topicSpec(SCORES_DLQ_TOPIC, 1, 30, d),
    // Outcomes are far fewer than scores: one partition is plenty and keeps them in receipt order.
    topicSpec(OUTCOMES_TOPIC, 1, 7, d),
    topicSpec(OUTCOMES_DLQ_TOPIC, 1, 30, d),
  ];
}

export interface TopicsReport {
  created: string[];
  /** Existing topics whose configs or partition counts were changed. */
  reconciled: string[];
  /** Differences Kafka does not let a client fix (replication factor): an operator's to resolve. */
  problems: string[];
}

// CommonJS enums Node's ESM loader does not name: reached through the default export.
const TOPIC_RESOURCE = kafkajs.ConfigResourceTypes.TOPIC;
const TOPIC_OVERRIDE = kafkajs.ConfigSource.TOPIC_CONFIG;

/**
 * Until every partition of `topics` has a leader. kafkajs's own wait (createTopics'
 * waitForLeaders) gives up when a broker of a fresh multi-broker cluster does not know a new
 * topic yet (UNKNOWN_TOPIC_OR_PARTITION), which is only metadata still propagating.
 */
async function waitForLeaders(admin: Admin, topics: string[], timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ready = await admin.fetchTopicMetadata({ topics }).then(
      (m) => m.topics.every((t) => t.partitions.length > 0 && t.partitions.every((p) => p.leader >= 0)),
      (err: unknown) => {
        if (Date.now() > deadline) throw err;
        return false;
      },
    );
    if (ready) return;
    if (Date.now() > deadline)
      throw new Error(`topics without leaders after ${timeoutMs} ms: ${topics.join(', ')}`);
    await sleep(200);
  }
}

async function topicStates(admin: Admin, topics: string[]): Promise<Map<string, TopicState>> {
  if (topics.length === 0) return new Map();
  const metadata = await admin.fetchTopicMetadata({ topics });
  const configs = await admin.describeConfigs({
    resources: topics.map((name) => ({ type: TOPIC_RESOURCE, name })),
    includeSynonyms: false,
  });
  const states = new Map<string, TopicState>();
  for (const t of metadata.topics) {
    const entries = configs.resources.find((r) => r.resourceName === t.name)?.configEntries ?? [];
    states.set(t.name, {
      partitions: t.partitions.length,
      replicationFactor: Math.min(...t.partitions.map((p) => p.replicas.length)),
      effective: Object.fromEntries(entries.map((e) => [e.configName, e.configValue])),
      overrides: Object.fromEntries(
        entries.filter((e) => e.configSource === TOPIC_OVERRIDE).map((e) => [e.configName, e.configValue]),
      ),
    });
  }
  return states;
}

/**
 * Creates missing topics and corrects existing ones where Kafka allows: configs through
 * AlterConfigs, partitions by growing. A replication factor that differs is only reported
 * (`problems`), as is a min ISR the topic's replicas could never meet.
 * `security`: SASL/TLS of an authenticated cluster (kafkaSecurity of the config).
 */
export async function ensureTopics(
  brokers: string[],
  security: Pick<KafkaConfig, 'sasl' | 'ssl'> = {},
  topics: TopicSpec[] = topicSpecs(),
): Promise<TopicsReport> {
  const admin = createKafka(brokers, 'frs-topics', { ...security, retry: { retries: 20 } }).admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    const missing = topics.filter((t) => !existing.has(t.topic));
    if (missing.length > 0) {
      await admin.createTopics({ topics: missing, waitForLeaders: false });
      await waitForLeaders(
        admin,
        missing.map((t) => t.topic),
      );
    }
    const present = topics.filter((t) => existing.has(t.topic));
    const states = await topicStates(
      admin,
      present.map((t) => t.topic),
    );
    const report: TopicsReport = { created: missing.map((t) => t.topic), reconciled: [], problems: [] };
    for (const spec of present) {
      const plan = planTopic(spec, states.get(spec.topic)!);
      report.problems.push(...plan.problems);
      if (plan.overrides) {
        await admin.alterConfigs({
          validateOnly: false,
          resources: [
            {
              type: TOPIC_RESOURCE,
              name: spec.topic,
              configEntries: Object.entries(plan.overrides).map(([name, value]) => ({ name, value })),
            },
          ],
        });
      }
      if (plan.partitions !== undefined) {
        await admin.createPartitions({ topicPartitions: [{ topic: spec.topic, count: plan.partitions }] });
      }
      if (plan.overrides || plan.partitions !== undefined) report.reconciled.push(spec.topic);
    }
    return report;
  } finally {
    await admin.disconnect();
  }
}

if (import.meta.main) {
  const cfg = loadConfig();
  const report = await ensureTopics(
    cfg.KAFKA_BROKERS,
    kafkaSecurity(cfg),
    topicSpecs({
      replicationFactor: cfg.KAFKA_REPLICATION_FACTOR,
      minInsyncReplicas: cfg.KAFKA_MIN_INSYNC_REPLICAS,
    }),
  );
  for (const p of report.problems) console.error(`[stack] WARNING kafka topic ${p}`);
  const done = [
    report.created.length ? `created ${report.created.join(', ')}` : '',
    report.reconciled.length ? `reconciled ${report.reconciled.join(', ')}` : '',
  ].filter(Boolean);
  console.error(`[stack] kafka topics ready${done.length ? ` (${done.join('; ')})` : ''}`);
}
