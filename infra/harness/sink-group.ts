/**
 * A test's own consumer groups (the audit sink's, the portal's Activity feed's), starting at the
 * topics' current ends. The dev stack's
 * shared `scores.v1` and `outcomes.v1` hold every earlier test's and benchmark's records; a sink
 * of the default group starts where that group last stopped and may first chew through a
 * backlog of hundreds of thousands of records (minutes) before it reaches the test's own.
 */
import { randomUUID } from 'node:crypto';
import type { Admin, Kafka } from 'kafkajs';
import { createKafka, OUTCOMES_TOPIC, SCORES_TOPIC } from '../../shared/clients/kafka.ts';
import { loadConfig } from '../../shared/config.ts';
import { waitFor } from './wait.ts';

/** Env for `startSink`: a new AUDIT_SINK_GROUP whose sink, ledger-learner and velocity groups read only what comes next. */
export async function sinkGroupAtEnd(prefix = 'frs-test-sink'): Promise<{ AUDIT_SINK_GROUP: string }> {
  const group = `${prefix}-${randomUUID()}`;
  // The sink's group reads both topics; its ledger learner's (`<group>-ledger`) the outcomes.
  await groupsAtEnd({
    [group]: [SCORES_TOPIC, OUTCOMES_TOPIC],
    [`${group}-ledger`]: [OUTCOMES_TOPIC],
    [`${group}-velocity`]: [SCORES_TOPIC],
  });
  return { AUDIT_SINK_GROUP: group };
}

type Ends = Map<string, { partition: number; offset: string }[]>;

/** Commits each group's offsets on its topics at the topics' current ends, the groups at once. */
async function groupsAtEnd(groups: Record<string, string[]>): Promise<void> {
  const kafka = createKafka(loadConfig().KAFKA_BROKERS, 'frs-test-group-at-end');
  const admin = kafka.admin();
  await admin.connect();
  try {
    const topics = [...new Set(Object.values(groups).flat())];
    const all: Ends = new Map();
    for (const topic of topics) {
      const offsets = await admin.fetchTopicOffsets(topic);
      all.set(
        topic,
        offsets.map((p) => ({ partition: p.partition, offset: p.high })),
      );
    }
    await Promise.all(
      Object.entries(groups).map(([groupId, its]) =>
        groupAtEnd(kafka, admin, groupId, new Map(its.map((t) => [t, all.get(t)!]))),
      ),
    );
  } finally {
    await admin.disconnect();
  }
}

/**
 * Seeks a member of `groupId` to `ends` and waits until Kafka holds those offsets as committed,
 * then leaves the group, empty, for the test's sink to join. kafkajs's `admin.setOffsets` does
 * the same one topic at a time, and waits out a paused consumer's 5 s fetch wait each time: 20 s
 * for a sink's four, paid by every test that starts a sink.
 */
async function groupAtEnd(kafka: Kafka, admin: Admin, groupId: string, ends: Ends): Promise<void> {
  const consumer = kafka.consumer({ groupId, maxWaitTimeInMs: 50 });
  await consumer.connect();
  try {
    const topics = [...ends.keys()];
    await consumer.subscribe({ topics });
    // Nothing is consumed: no offset is resolved but the seeks, which a member commits as it
    // makes them (autoCommit).
    await consumer.run({ eachBatchAutoResolve: false, eachBatch: async () => undefined });
    consumer.pause(topics.map((topic) => ({ topic })));
    for (const [topic, partitions] of ends) for (const p of partitions) consumer.seek({ topic, ...p });
    await waitFor(
      `${groupId} committed at the topics' ends`,
      () => committedAt(admin, groupId, ends),
      30_000,
      20,
    );
  } finally {
    await consumer.disconnect();
  }
}

async function committedAt(admin: Admin, groupId: string, ends: Ends): Promise<boolean> {
  const committed = await admin.fetchOffsets({ groupId, topics: [...ends.keys()] });
  return committed.every(({ topic, partitions }) =>
    ends
      .get(topic)!
      .every((end) => partitions.find((p) => p.partition === end.partition)?.offset === end.offset),
  );
}
