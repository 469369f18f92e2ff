import type { Consumer, Kafka } from 'kafkajs';
import { OUTCOMES_TOPIC } from '../../shared/clients/kafka.ts';
import type { LedgerReports } from '../../shared/capabilities/ledger-reports.ts';
import type { Logger } from '../../shared/logger.ts';
import { OutcomeRecord } from '../../shared/outcomes/record.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Teaches the reputation ledger from `outcomes.v1`: each outcome updates the per-subject report
 * counts every API node reads live (see LedgerReports). A consumer group of its own, so the
 * ledger learns within a second even while ClickHouse is down and the sink is holding back.
 * Offsets are committed after Redis took the batch; while Redis is down the batch is retried.
 * Undecodable records are skipped here (the sink dead-letters them).
 */
export class LedgerLearner {
  private readonly consumer: Consumer;
  private readonly reports: LedgerReports;
  private readonly log: Logger;
  applied = 0;

  constructor(kafka: Kafka, reports: LedgerReports, log: Logger, groupId: string) {
    // Outcomes are few and each should reach the ledger at once: no waiting for bytes to pile up.
    this.consumer = kafka.consumer({ groupId, minBytes: 1, maxWaitTimeInMs: 250 });
    this.reports = reports;
    this.log = log;
  }

  async start(): Promise<void> {
    await this.consumer.connect();
    await this.consumer.subscribe({ topic: OUTCOMES_TOPIC, fromBeginning: true });
    await this.consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      eachBatch: async ({ batch, resolveOffset, heartbeat, isRunning, isStale }) => {
        for (const message of batch.messages) {
          const parsed = message.value ? safeJson(message.value.toString('utf8')) : undefined;
          const record = OutcomeRecord.safeParse(parsed);
          let backoff = 100;
          while (record.success) {
            if (!isRunning() || isStale()) return;
            try {
              await this.reports.apply(record.data);
              this.applied += 1;
              break;
            } catch (err) {
              this.log.warn({ err: String(err), backoff }, 'ledger update failed; retrying');
              await heartbeat().catch(() => undefined);
              await sleep(backoff);
              backoff = Math.min(backoff * 2, 5_000);
            }
          }
          resolveOffset(message.offset);
        }
        const last = batch.messages[batch.messages.length - 1];
        if (!last) return;
        await this.consumer.commitOffsets([
          { topic: batch.topic, partition: batch.partition, offset: (BigInt(last.offset) + 1n).toString() },
        ]);
        await heartbeat();
      },
    });
  }

  async stop(): Promise<void> {
    await this.consumer.disconnect();
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
