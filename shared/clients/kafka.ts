import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { gzipSync, unzipSync } from 'node:zlib';
import kafkajs, { CompressionTypes, Kafka, logLevel, type KafkaConfig } from 'kafkajs';
import type { Config } from '../config.ts';

/**
 * kafkajs's own gzip codec compresses with an async zlib call per batch: a threadpool hop and a
 * fresh deflate state each time, about 300 µs of CPU whatever the batch's size, which on the API
 * node was a sixth of a scoring request's CPU. Synchronous level-1 deflate costs 25-40 µs for a
 * batch of 1-40 records (measured on this codebase's records), still shrinks JSON several-fold,
 * and is plain gzip to every consumer. Decompression is synchronous for the same reason: every
 * consumer (the sink, the portal's feed) inflates each producer batch, which below a few hundred
 * scores a second holds one or two records, and the async call cost 35-155 µs of CPU for one
 * record against 10-20 µs inline (docs/performance.md, "The whole system's cost per score").
 */
// A CommonJS export Node's ESM loader does not name: reached through the default export.
kafkajs.CompressionCodecs[CompressionTypes.GZIP] = () => ({
  compress: async (encoder: { buffer: Buffer }) => gzipSync(encoder.buffer, { level: 1 }),
  decompress: async (buffer: Buffer) => unzipSync(buffer),
});

/**
 * kafkajs 2.2.4's request queue re-arms a timer every time it checks for pending requests, even
 * when nothing is pending and the broker is not throttling: the delay is then `-1 - Date.now()`,
 * which Node turns into 1 ms (with a TimeoutNegativeWarning since Node 24). Every broker
 * connection so spins about 900 times a second for its whole life: 30 ms of CPU a second on an
 * idle API node, and a wake-up of the event loop every millisecond under load (kafkajs issues
 * 1556 and 1704, unfixed upstream). Without pending requests and without a throttle there is
 * nothing to wait for: `push` arms the check itself when it queues a request, and every answer
 * from the broker checks the queue, so the timer is armed only when there is something to check.
 */
const requireCjs = createRequire(import.meta.url);
const RequestQueue = requireCjs('kafkajs/src/network/requestQueue/index.js') as {
  prototype: { scheduleCheckPendingRequests: () => void; pending: unknown[]; throttledUntil: number };
};
const scheduleCheck = RequestQueue.prototype.scheduleCheckPendingRequests;
if (typeof scheduleCheck !== 'function')
  throw new Error('kafkajs: RequestQueue.scheduleCheckPendingRequests moved');
RequestQueue.prototype.scheduleCheckPendingRequests = function (this: typeof RequestQueue.prototype) {
  if (this.pending.length === 0 && this.throttledUntil <= Date.now()) return;
  scheduleCheck.call(this);
};

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

/**
 * SASL and TLS of a deployment's Kafka clients, from the config; empty when it has none. With
 * KAFKA_SSL_CA_FILE the brokers' certificates must chain to that CA (and name the broker's host),
 * as Node's TLS checks them: a broker with any other certificate is refused.
 */
export function kafkaSecurity(
  cfg: Pick<
    Config,
    'KAFKA_SASL_MECHANISM' | 'KAFKA_SASL_USERNAME' | 'KAFKA_SASL_PASSWORD' | 'KAFKA_SSL' | 'KAFKA_SSL_CA_FILE'
  >,
): Pick<KafkaConfig, 'sasl' | 'ssl'> {
  const out: Pick<KafkaConfig, 'sasl' | 'ssl'> = !cfg.KAFKA_SSL
    ? {}
    : cfg.KAFKA_SSL_CA_FILE
      ? { ssl: { ca: [readFileSync(cfg.KAFKA_SSL_CA_FILE, 'utf8')], rejectUnauthorized: true } }
      : { ssl: true };
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
