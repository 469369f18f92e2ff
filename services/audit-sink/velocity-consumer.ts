/**
 * Counts network velocity from `scores.v1` (shared/capabilities/network-velocity/counter.ts): per
 * subject, which organisations scored it and how often. A consumer group of its own
 * (`<AUDIT_SINK_GROUP>-velocity`), so counting never waits for the sink's ClickHouse inserts and
 * the sink never waits for Redis. Offsets are committed after Redis took the batch; while Redis is
 * down the batch is retried. Counting is idempotent per organisation and subject (count.lua), so a
 * re-delivered batch changes nothing. Undecodable records are skipped (the sink dead-letters them).
 */
import type { Consumer, Kafka } from 'kafkajs';
import { Counter } from 'prom-client';
import { z } from 'zod';
import { SCORES_TOPIC } from '../../shared/clients/kafka.ts';
import type { CountedScore, VelocityCounter } from '../../shared/capabilities/network-velocity/counter.ts';
import type { Logger } from '../../shared/logger.ts';
import { applyWhileOwned, commitBatch } from './batch-steps.ts';

const counted = new Counter({
  name: 'frs_velocity_scores_counted_total',
  help: 'Score records the velocity consumer counted (each into up to three subjects)',
});

/** What the counter reads of an audit record: who scored what, when. */
const ScoreRecord = z.object({
  org_id: z.string(),
  scored_at_ms: z.number(),
  request: z.object({
    subject: z.object({ phone_number: z.string().optional(), ip_address: z.string().optional() }),
  }),
});

export interface VelocityConsumerDeps {
  kafka: Kafka;
  counter: VelocityCounter;
  log: Logger;
  groupId: string;
}

export function decodeScores(values: readonly (Buffer | null)[]): CountedScore[] {
  const out: CountedScore[] = [];
  for (const value of values) {
    if (!value) continue;
    let json: unknown;
    try {
      json = JSON.parse(value.toString('utf8'));
    } catch {
      continue;
    }
    const parsed = ScoreRecord.safeParse(json);
    if (parsed.success)
      out.push({
        orgId: parsed.data.org_id,
        scoredAtMs: parsed.data.scored_at_ms,
        subject: parsed.data.request.subject,
      });
  }
  return out;
}

export class VelocityConsumer {
  private readonly consumer: Consumer;
  private readonly deps: VelocityConsumerDeps;

  constructor(deps: VelocityConsumerDeps) {
    // Batches as they come, a second's wait at most: the snapshot is republished every few seconds.
    this.consumer = deps.kafka.consumer({ groupId: deps.groupId, maxWaitTimeInMs: 1_000 });
    this.deps = deps;
  }

  async start(): Promise<void> {
    await this.consumer.connect();
    // From the beginning: a new group rebuilds the counts from what Kafka still holds.
    await this.consumer.subscribe({ topic: SCORES_TOPIC, fromBeginning: true });
    await this.consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      eachBatch: async (payload) => {
        const scores = decodeScores(payload.batch.messages.map((m) => m.value));
        const done =
          scores.length === 0 ||
          (await applyWhileOwned(payload, this.deps.log, 'velocity count', () =>
            this.deps.counter.count(scores),
          ));
        if (!done) return;
        counted.inc(scores.length);
        await commitBatch(this.consumer, payload);
      },
    });
  }

  async stop(): Promise<void> {
    await this.consumer.disconnect();
  }
}
