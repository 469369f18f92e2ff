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
    // Batches of up to a second: the snapshot is republished every few seconds, so waiting for
    // bytes costs nothing a caller sees. Answering each fetch as soon as one record was there
    // (minBytes 1) made batches of a record or two, and a fetch and an offset commit for each:
    // 1.3-1.7 ms of the system's CPU per score, now 0.02-0.17 ms (docs/performance.md).
    this.consumer = deps.kafka.consumer({
      groupId: deps.groupId,
      minBytes: 1024 * 1024,
      maxWaitTimeInMs: 1_000,
      maxBytes: 6 * 1024 * 1024,
      maxBytesPerPartition: 2 * 1024 * 1024,
    });
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
