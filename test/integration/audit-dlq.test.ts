import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKafka, SCORES_DLQ_TOPIC, SCORES_TOPIC } from '../../shared/clients/kafka.ts';
import { cfg } from '../helpers/fixtures.ts';
import { startSink, waitFor, type Service } from '../helpers/processes.ts';

/** A record the sink cannot decode goes to scores.v1.dlq unchanged, with the reason in headers. */
describe('audit sink dead-letter queue on the real Kafka', () => {
  const kafka = createKafka(cfg.KAFKA_BROKERS, 'frs-test-dlq');
  const producer = kafka.producer();
  const consumer = kafka.consumer({ groupId: `frs-test-dlq-${randomUUID()}` });
  const seen: { key: string; value: string; headers: Record<string, string> }[] = [];
  let sink: Service;

  beforeAll(async () => {
    await producer.connect();
    await consumer.connect();
    await consumer.subscribe({ topic: SCORES_DLQ_TOPIC, fromBeginning: false });
    await consumer.run({
      eachMessage: async ({ message }) => {
        const headers = Object.fromEntries(
          Object.entries(message.headers ?? {}).map(([k, v]) => [k, String(v)]),
        );
        seen.push({ key: String(message.key), value: String(message.value), headers });
      },
    });
    // The consumer has joined and taken its partitions once the group describes it as stable.
    await waitFor(
      'the DLQ consumer to join',
      async () => (await consumer.describeGroup()).state === 'Stable',
    );
    sink = startSink();
  });

  afterAll(async () => {
    await sink?.stop();
    await consumer.disconnect();
    await producer.disconnect();
  });

  it('passes the poison record through byte for byte and says why', async () => {
    const key = `poison-${randomUUID()}`;
    const value = `{"v":1,"score_id":"not-an-id","note":"${key}"}`;
    await producer.send({ topic: SCORES_TOPIC, messages: [{ key, value, headers: { origin: 'test' } }] });
    const dead = await waitFor(
      'the poison record on the DLQ',
      async () => seen.find((m) => m.key === key),
      60_000,
    );
    expect(dead.value).toBe(value);
    expect(dead.headers.origin).toBe('test');
    expect(dead.headers['x-dlq-reason']).toMatch(/schema/);
    expect(dead.headers['x-dlq-source-topic']).toBe(SCORES_TOPIC);
  });
});
