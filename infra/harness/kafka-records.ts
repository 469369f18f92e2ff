import { createKafka, SCORES_TOPIC } from '../../shared/clients/kafka.ts';
import { cfg } from './fixtures.ts';
import { waitFor } from './wait.ts';

export type Offsets = Map<number, number>;

/** The end offset of every partition of scores.v1: where records produced from now on start. */
export async function scoreTopicEnd(): Promise<Offsets> {
  const admin = createKafka(cfg.KAFKA_BROKERS, 'frs-test-offsets').admin();
  await admin.connect();
  try {
    const parts = await admin.fetchTopicOffsets(SCORES_TOPIC);
    return new Map(parts.map((p) => [p.partition, Number(p.high)]));
  } finally {
    await admin.disconnect();
  }
}

/**
 * The scores.v1 records between two offset snapshots whose `org_id` is `orgId`, read by a
 * throwaway consumer seeked to `from`, so a test sees exactly what was streamed meanwhile.
 */
export async function scoreRecordsFor(orgId: string, from: Offsets, to: Offsets): Promise<unknown[]> {
  return (await placedScoreRecordsFor(orgId, from, to)).map((r) => r.record);
}

/**
 * The distinct score ids streamed for `orgId` since `from`, once there are at least `n` (or
 * after 15 s). Distinct, because a send slower than the publisher's spill threshold is also
 * journalled and re-sent: Kafka may hold a record twice, and ClickHouse collapses the copies.
 */
export async function streamedScoreIds(orgId: string, from: Offsets, n: number): Promise<string[]> {
  let ids: string[] = [];
  // Past the deadline the ids streamed so far are returned, for the caller's assertion to show.
  await waitFor(
    `${n} score records of ${orgId}`,
    async () => {
      const records = (await scoreRecordsFor(orgId, from, await scoreTopicEnd())) as { score_id: string }[];
      ids = [...new Set(records.map((r) => r.score_id))];
      return ids.length >= n;
    },
    15_000,
    250,
  ).catch(() => undefined);
  return ids;
}

/** The same records with the partition each landed on. */
export async function placedScoreRecordsFor(
  orgId: string,
  from: Offsets,
  to: Offsets,
): Promise<{ partition: number; record: unknown }[]> {
  const remaining = new Set([...to].filter(([p, end]) => end > (from.get(p) ?? 0)).map(([p]) => p));
  if (remaining.size === 0) return [];
  const kafka = createKafka(cfg.KAFKA_BROKERS, 'frs-test-reader');
  const consumer = kafka.consumer({ groupId: `frs-test-${process.pid}-${Date.now()}` });
  const out: { partition: number; record: unknown }[] = [];
  await consumer.connect();
  try {
    await consumer.subscribe({ topic: SCORES_TOPIC, fromBeginning: false });
    const done = new Promise<void>((resolve) => {
      void consumer.run({
        autoCommit: false,
        eachMessage: async ({ partition, message }) => {
          const offset = Number(message.offset);
          const end = to.get(partition) ?? 0;
          if (offset < end && message.value) {
            const rec = JSON.parse(message.value.toString()) as { org_id?: string };
            if (rec.org_id === orgId) out.push({ partition, record: rec });
          }
          if (offset >= end - 1) {
            remaining.delete(partition);
            if (remaining.size === 0) resolve();
          }
        },
      });
    });
    for (const p of to.keys())
      consumer.seek({ topic: SCORES_TOPIC, partition: p, offset: String(from.get(p) ?? 0) });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('scores.v1 not read to the end in 30 s')), 30_000);
    });
    await Promise.race([done, timeout]).finally(() => clearTimeout(timer));
    return out;
  } finally {
    await consumer.disconnect();
  }
}

/**
 * How many scores.v1 records a consumer group has yet to commit, summed over partitions. The
 * audit sink commits a batch only after ClickHouse took it, so 0 means ClickHouse holds every
 * record the broker has.
 */
export async function scoreTopicLag(
  brokers: string[],
  groupId: string,
  topic: string = SCORES_TOPIC,
): Promise<number> {
  const admin = createKafka(brokers, 'frs-test-lag').admin();
  await admin.connect();
  try {
    const ends = await admin.fetchTopicOffsets(topic);
    const [committed] = await admin.fetchOffsets({ groupId, topics: [topic] });
    const at = new Map(committed?.partitions.map((p) => [p.partition, Number(p.offset)]));
    return ends.reduce((lag, p) => {
      const done = at.get(p.partition) ?? -1;
      // -1: nothing committed yet, so the group still owes everything from the log start.
      return lag + Number(p.high) - (done < 0 ? Number(p.low) : done);
    }, 0);
  } finally {
    await admin.disconnect();
  }
}
