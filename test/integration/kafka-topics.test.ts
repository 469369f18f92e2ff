/**
 * Topic reconciliation against the local broker, on topics of this test's own: a min ISR that
 * drifted is put back, a short topic grows, and what one broker cannot give (three replicas) is
 * reported without failing or touching the topic.
 */
import { randomBytes } from 'node:crypto';
import kafkajs from 'kafkajs';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureTopics, topicSpec } from '../../infra/kafka/topics.ts';
import { createKafka } from '../../shared/clients/kafka.ts';
import { cfg } from '../../infra/harness/fixtures.ts';

const name = `frs-test-topics-${randomBytes(4).toString('hex')}`;
const admin = createKafka(cfg.KAFKA_BROKERS, 'frs-test-topics').admin();

async function describe1(topic: string) {
  const [meta] = (await admin.fetchTopicMetadata({ topics: [topic] })).topics;
  const { resources } = await admin.describeConfigs({
    resources: [{ type: kafkajs.ConfigResourceTypes.TOPIC, name: topic }],
    includeSynonyms: false,
  });
  const config = Object.fromEntries(resources[0]!.configEntries.map((e) => [e.configName, e.configValue]));
  return { partitions: meta!.partitions.length, config };
}

afterAll(async () => {
  await admin.deleteTopics({ topics: [name] }).catch(() => undefined);
  await admin.disconnect();
});

describe('ensureTopics on an existing topic', () => {
  it('corrects min.insync.replicas and partitions, keeps other overrides, reports the replication factor', async () => {
    await admin.connect();
    await admin.createTopics({
      waitForLeaders: true,
      topics: [
        {
          topic: name,
          numPartitions: 1,
          replicationFactor: 1,
          configEntries: [
            { name: 'min.insync.replicas', value: '2' },
            { name: 'segment.ms', value: '3600000' },
          ],
        },
      ],
    });

    const report = await ensureTopics(cfg.KAFKA_BROKERS, {}, [
      topicSpec(name, 2, 7, { replicationFactor: 1, minInsyncReplicas: 1 }),
    ]);
    expect(report).toEqual({ created: [], reconciled: [name], problems: [] });
    const after = await describe1(name);
    expect(after.partitions).toBe(2);
    expect(after.config).toMatchObject({
      'min.insync.replicas': '1',
      'retention.ms': String(7 * 24 * 3600 * 1000),
      'segment.ms': '3600000',
    });

    // A second run finds nothing to do.
    expect(
      await ensureTopics(cfg.KAFKA_BROKERS, {}, [
        topicSpec(name, 2, 7, { replicationFactor: 1, minInsyncReplicas: 1 }),
      ]),
    ).toEqual({ created: [], reconciled: [], problems: [] });

    // Three replicas configured on a one-broker topic: reported, and the min ISR is not raised
    // past the topic's one replica (that would refuse every acks=all write).
    const cluster = await ensureTopics(cfg.KAFKA_BROKERS, {}, [
      topicSpec(name, 2, 7, { replicationFactor: 3, minInsyncReplicas: 2 }),
    ]);
    expect(cluster.reconciled).toEqual([]);
    expect(cluster.problems).toEqual([
      expect.stringContaining(`${name}: replication factor 1, configured 3`),
      expect.stringContaining(`${name}: min.insync.replicas 2 left at 1`),
    ]);
    expect((await describe1(name)).config['min.insync.replicas']).toBe('1');
  });
});
