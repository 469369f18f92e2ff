import { Kafka, logLevel, type KafkaConfig } from 'kafkajs';
import type { Config } from '../config.ts';

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

/** SASL and TLS of a deployment's Kafka clients, from the config; empty when it has none. */
export function kafkaSecurity(
  cfg: Pick<Config, 'KAFKA_SASL_MECHANISM' | 'KAFKA_SASL_USERNAME' | 'KAFKA_SASL_PASSWORD' | 'KAFKA_SSL'>,
): Pick<KafkaConfig, 'sasl' | 'ssl'> {
  const out: Pick<KafkaConfig, 'sasl' | 'ssl'> = cfg.KAFKA_SSL ? { ssl: true } : {};
  if (cfg.KAFKA_SASL_MECHANISM && cfg.KAFKA_SASL_USERNAME && cfg.KAFKA_SASL_PASSWORD) {
    const credentials = { username: cfg.KAFKA_SASL_USERNAME, password: cfg.KAFKA_SASL_PASSWORD };
    out.sasl =
      cfg.KAFKA_SASL_MECHANISM === 'plain'
        ? { mechanism: 'plain', ...credentials }
        : cfg.KAFKA_SASL_MECHANISM === 'scram-sha-256'
          ? { mechanism: 'scram-sha-256', ...credentials }
          : { mechanism: 'scram-sha-512', ...credentials };
  }
  return out;
}
