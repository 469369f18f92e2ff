/**
 * An idle Kafka client must let its process sleep. kafkajs 2.2.4 re-arms a 1 ms timer per broker
 * connection after every answer, pending requests or not (shared/clients/kafka.ts undoes it):
 * about 900 wake-ups a second per connection for the connection's whole life.
 */
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { createKafka, SCORES_DLQ_TOPIC } from '../../shared/clients/kafka.ts';
import { cfg } from '../../infra/harness/fixtures.ts';
import { observeFor } from '../../infra/harness/wait.ts';

/** This thread's voluntary context switches: each is a sleep the event loop woke from. */
const wakeUps = () =>
  Number(/^voluntary_ctxt_switches:\s+(\d+)/m.exec(readFileSync('/proc/thread-self/status', 'utf8'))![1]);

const producer = createKafka(cfg.KAFKA_BROKERS, 'frs-test-kafka-idle').producer();
afterAll(() => producer.disconnect());

describe('an idle Kafka producer', () => {
  it('does not wake the event loop every millisecond once its requests are answered', async () => {
    await producer.connect();
    // Every answered request (connect's metadata among them) re-armed the spinning timer.
    await producer.send({ topic: SCORES_DLQ_TOPIC, messages: [] });
    // A rate is measured over time: 200 ms for the send's last answers to land, then 2 s counted.
    await observeFor(200);
    const before = wakeUps();
    await observeFor(2_000);
    const perSecond = (wakeUps() - before) / 2;
    // Spinning is ~900 a second per connection; a sleeping process wakes a few dozen times.
    expect(perSecond).toBeLessThan(200);
  });
});
