/**
 * The multi-node Kafka topology on three local KRaft brokers (infra/local/kafka-cluster.sh):
 * topics made with replication factor 3 and min ISR 2 and put back when they drift, and the audit
 * publisher's way of sending (idempotent, acks=all, one partition per send through its sticky
 * partitioner) losing no acknowledged record when a partition leader is SIGKILLed mid-stream.
 */
import { randomBytes } from 'node:crypto';
import kafkajs from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureTopics, topicSpec } from '../../infra/kafka/topics.ts';
import { StickyPartitioner } from '../../services/api/sticky-partitioner.ts';
import { createKafka } from '../../shared/clients/kafka.ts';
import { kafkaCluster, type KafkaClusterUnderTest } from '../helpers/kafka-cluster.ts';
import { waitFor } from '../../infra/harness/wait.ts';

const topic = `frs-test-cluster-${randomBytes(4).toString('hex')}`;
const durability = { replicationFactor: 3, minInsyncReplicas: 2 };
let cluster: KafkaClusterUnderTest | undefined;
let skipReason = '';

beforeAll(async () => {
  const started = await kafkaCluster(90_000);
  if (typeof started === 'string') skipReason = started;
  else cluster = started;
}, 120_000);

afterAll(async () => {
  if (!cluster) return;
  await cluster.revive();
  const admin = createKafka(cluster.brokers, 'frs-test-cleanup').admin();
  await admin.connect();
  await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
  await admin.disconnect();
  await cluster.release();
}, 120_000);

describe('Kafka on three brokers', () => {
  it('creates topics with 3 replicas and min ISR 2, and puts a drifted min ISR back', async (ctx) => {
    if (!cluster) return ctx.skip(skipReason);
    const spec = [topicSpec(topic, 3, 1, durability)];
    expect(await ensureTopics(cluster.brokers, {}, spec)).toEqual({
      created: [topic],
      reconciled: [],
      problems: [],
    });
    const admin = createKafka(cluster.brokers, 'frs-test-topics').admin();
    await admin.connect();
    try {
      // A new topic reaches each broker's metadata in turn: ask until the one asked knows it.
      const meta = await waitFor('topic metadata', () => admin.fetchTopicMetadata({ topics: [topic] }));
      expect(meta.topics[0]!.partitions.map((p) => p.replicas.length)).toEqual([3, 3, 3]);
      const resource = { type: kafkajs.ConfigResourceTypes.TOPIC, name: topic };
      await waitFor('min ISR altered', async () => {
        await admin.alterConfigs({
          validateOnly: false,
          resources: [{ ...resource, configEntries: [{ name: 'min.insync.replicas', value: '1' }] }],
        });
        return true;
      });
      // The drift must have reached the brokers before reconciling, as an operator's old one has.
      const minIsr = async () =>
        (
          await admin.describeConfigs({ resources: [resource], includeSynonyms: false })
        ).resources[0]!.configEntries.find((e) => e.configName === 'min.insync.replicas')?.configValue;
      await waitFor('min.insync.replicas 1 on every broker', async () => {
        for (let i = 0; i < 6; i++) if ((await minIsr()) !== '1') return false;
        return true;
      });
      expect(await ensureTopics(cluster.brokers, {}, spec)).toEqual({
        created: [],
        reconciled: [topic],
        problems: [],
      });
      // The brokers apply a config change from the metadata log: read until this one has.
      await waitFor('min.insync.replicas 2', async () => (await minIsr()) === '2');
    } finally {
      await admin.disconnect();
    }
  });

  it('keeps every acknowledged record when a partition leader is SIGKILLed', async (ctx) => {
    if (!cluster) return ctx.skip(skipReason);
    const kafka = createKafka(cluster.brokers, 'frs-test-publisher');
    const admin = kafka.admin();
    const sticky = new StickyPartitioner();
    const producer = kafka.producer({
      idempotent: true,
      maxInFlightRequests: 1,
      createPartitioner: sticky.create,
    });
    await Promise.all([admin.connect(), producer.connect()]);
    try {
      // A send that fails is sent again, as the publisher's journal replay would: a record may
      // then be in the topic twice (the sink collapses it), but an acknowledged one never missing.
      const acknowledged = new Set<string>();
      for (let batch = 0; batch < 40; batch++) {
        if (batch === 10) {
          const meta = await admin.fetchTopicMetadata({ topics: [topic] });
          await cluster.kill(meta.topics[0]!.partitions.find((p) => p.partitionId === 0)!.leader);
        }
        const messages = Array.from({ length: 100 }, (_, i) => ({ value: `r${batch * 100 + i}` }));
        await waitFor(`batch ${batch} acknowledged`, async () => {
          sticky.advance();
          await producer.send({ topic, acks: -1, messages });
          return true;
        });
        for (const m of messages) acknowledged.add(m.value);
      }
      const stored = new Set<string>();
      const consumer = kafka.consumer({ groupId: `${topic}-check` });
      await consumer.connect();
      await consumer.subscribe({ topic, fromBeginning: true });
      await consumer.run({ eachMessage: async ({ message }) => void stored.add(String(message.value)) });
      await waitFor('every record read back', async () => stored.size >= acknowledged.size, 60_000).catch(
        () => undefined,
      );
      await consumer.disconnect();
      expect([...acknowledged].filter((v) => !stored.has(v))).toEqual([]);
    } finally {
      await Promise.all([producer.disconnect(), admin.disconnect()]);
    }
  });
});
