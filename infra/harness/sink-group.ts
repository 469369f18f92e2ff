/**
 * A test's own consumer groups (the audit sink's, the portal's Activity feed's), starting at the
 * topics' current ends. The dev stack's
 * shared `scores.v1` and `outcomes.v1` hold every earlier test's and benchmark's records; a sink
 * of the default group starts where that group last stopped and may first chew through a
 * backlog of hundreds of thousands of records (minutes) before it reaches the test's own.
 */
import { randomUUID } from 'node:crypto';
import { createKafka, OUTCOMES_TOPIC, SCORES_TOPIC } from '../../shared/clients/kafka.ts';
import { loadConfig } from '../../shared/config.ts';

/** Env for `startSink`: a new AUDIT_SINK_GROUP whose sink, ledger-learner and velocity groups read only what comes next. */
export async function sinkGroupAtEnd(prefix = 'frs-test-sink'): Promise<{ AUDIT_SINK_GROUP: string }> {
  const group = `${prefix}-${randomUUID()}`;
  // The sink's group reads both topics; its ledger learner's (`<group>-ledger`) the outcomes.
  await groupsAtEnd([
    [group, SCORES_TOPIC],
    [group, OUTCOMES_TOPIC],
    [`${group}-ledger`, OUTCOMES_TOPIC],
    [`${group}-velocity`, SCORES_TOPIC],
  ]);
  return { AUDIT_SINK_GROUP: group };
}

/** Commits each group's offsets on its topic at the topic's current end. */
async function groupsAtEnd(pairs: [groupId: string, topic: string][]): Promise<void> {
  const admin = createKafka(loadConfig().KAFKA_BROKERS, 'frs-test-group-at-end').admin();
  await admin.connect();
  try {
    for (const [groupId, topic] of pairs) {
      const ends = await admin.fetchTopicOffsets(topic);
      await admin.setOffsets({
        groupId,
        topic,
        partitions: ends.map((p) => ({ partition: p.partition, offset: p.high })),
      });
    }
  } finally {
    await admin.disconnect();
  }
}
