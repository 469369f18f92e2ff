/**
 * Creates the Kafka topics the services use, if missing. Run by `stack.sh up` and usable against
 * any cluster: `KAFKA_BROKERS=host:9092 node infra/kafka/topics.ts`.
 */
import { loadConfig } from '../../shared/config.ts';
import type { KafkaConfig } from 'kafkajs';
import {
  createKafka,
  kafkaSecurity,
  OUTCOMES_DLQ_TOPIC,
  OUTCOMES_TOPIC,
  SCORES_DLQ_TOPIC,
  SCORES_TOPIC,
} from '../../shared/clients/kafka.ts';

/** Topic specs: partitions bound the audit sink's parallelism; retention covers a long sink outage. */
const stream = (topic: string, numPartitions: number) => ({
  topic,
  numPartitions,
  replicationFactor: 1,
  configEntries: [
    { name: 'retention.ms', value: String(7 * 24 * 3600 * 1000) },
    { name: 'min.insync.replicas', value: '1' },
  ],
});
const deadLetters = (topic: string) => ({
  topic,
  numPartitions: 1,
  replicationFactor: 1,
  configEntries: [{ name: 'retention.ms', value: String(30 * 24 * 3600 * 1000) }],
});

export const TOPICS = [
  stream(SCORES_TOPIC, 3),
  deadLetters(SCORES_DLQ_TOPIC),
  // Outcomes are far fewer than scores: one partition is plenty and keeps them in receipt order.
  stream(OUTCOMES_TOPIC, 1),
  deadLetters(OUTCOMES_DLQ_TOPIC),
];

/** `security`: SASL/TLS of an authenticated cluster (kafkaSecurity of the config). */
export async function ensureTopics(
  brokers: string[],
  security: Pick<KafkaConfig, 'sasl' | 'ssl'> = {},
): Promise<string[]> {
  const admin = createKafka(brokers, 'frs-topics', { ...security, retry: { retries: 20 } }).admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    const missing = TOPICS.filter((t) => !existing.has(t.topic));
    if (missing.length > 0) await admin.createTopics({ topics: missing, waitForLeaders: true });
    return missing.map((t) => t.topic);
  } finally {
    await admin.disconnect();
  }
}

if (import.meta.main) {
  const cfg = loadConfig();
  const created = await ensureTopics(cfg.KAFKA_BROKERS, kafkaSecurity(cfg));
  console.error(`[stack] kafka topics ready${created.length ? ` (created ${created.join(', ')})` : ''}`);
}
