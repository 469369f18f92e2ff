import { Kafka, logLevel, type KafkaConfig } from 'kafkajs';

export const SCORES_TOPIC = 'scores.v1';
export const SCORES_DLQ_TOPIC = 'scores.v1.dlq';
export const OUTCOMES_TOPIC = 'outcomes.v1';
export const OUTCOMES_DLQ_TOPIC = 'outcomes.v1.dlq';

export function createKafka(brokers: string[], clientId: string, extra: Partial<KafkaConfig> = {}): Kafka {
  return new Kafka({
    clientId,
    brokers,
    logLevel: logLevel.NOTHING,
    connectionTimeout: 2_000,
    requestTimeout: 10_000,
    retry: { initialRetryTime: 100, maxRetryTime: 2_000, retries: 5 },
    ...extra,
  });
}
