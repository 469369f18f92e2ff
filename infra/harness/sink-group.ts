/**
 * A test's own audit-sink consumer groups, starting at the topics' current ends. The dev stack's
 * shared `scores.v1` and `outcomes.v1` hold every earlier test's and benchmark's records; a sink
 * of the default group starts where that group last stopped and may first chew through a
 * backlog of hundreds of thousands of records (minutes) before it reaches the test's own.
 */
import { randomUUID } from 'node:crypto';
import { createKafka, OUTCOMES_TOPIC, SCORES_TOPIC } from '../../shared/clients/kafka.ts';
import { loadConfig } from '../../shared/config.ts';

/** Env for `startSink`: a new AUDIT_SINK_GROUP whose sink and ledger-learner groups read only what comes next. */
export async function sinkGroupAtEnd(prefix = 'frs-test-sink'): Promise<{ AUDIT_SINK_GROUP: string }> {
  const group = `${prefix}-${randomUUID()}`;
  const admin = createKafka(loadConfig().KAFKA_BROKERS, 'frs-test-sink-group').admin();
  await admin.connect();
  try {
    const atEnd = async (groupId: string, topic: string) => {
      const ends = await admin.fetchTopicOffsets(topic);
      await admin.setOffsets({
        groupId,
        topic,
        partitions: ends.map((p) => ({ partition: p.partition, offset: p.high })),
      });
    };
    // The sink's group reads both topics; its ledger learner's (`<group>-ledger`) the outcomes.
    await atEnd(group, SCORES_TOPIC);
    await atEnd(group, OUTCOMES_TOPIC);
    await atEnd(`${group}-ledger`, OUTCOMES_TOPIC);
  } finally {
    await admin.disconnect();
  }
  return { AUDIT_SINK_GROUP: group };
}
