import type { Kafka, Producer } from 'kafkajs';
import { SCORES_TOPIC } from '../../shared/clients/kafka.ts';
import type { AuditRecord } from '../../shared/audit/record.ts';
import type { Logger } from '../../shared/logger.ts';

export interface AuditPublisherOptions {
  /** Flush when this many records are waiting. */
  batchSize: number;
  /** Flush at least this often while records are waiting. */
  lingerMs: number;
  /** Most records held in memory; beyond it the oldest are dropped and counted. */
  maxBuffered: number;
}

const DEFAULTS: AuditPublisherOptions = { batchSize: 500, lingerMs: 20, maxBuffered: 100_000 };

/**
 * Streams audit records to Kafka without the request ever waiting: `publish` only appends to an
 * in-process buffer; a timer flushes it with one `sendBatch` by size or time. kafkajs has no
 * linger of its own, so batching happens here. A failed batch goes back to the front of the
 * buffer and is retried on the next flush.
 */
export class AuditPublisher {
  private readonly producer: Producer;
  private readonly opts: AuditPublisherOptions;
  private readonly log: Logger;
  private buffer: { key: string; value: string }[] = [];
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  private connected = false;
  dropped = 0;
  sent = 0;

  constructor(kafka: Kafka, log: Logger, opts: Partial<AuditPublisherOptions> = {}) {
    this.opts = { ...DEFAULTS, ...opts };
    this.log = log;
    // Idempotent producer with acks=all: a retried send is not written twice by the broker.
    this.producer = kafka.producer({
      idempotent: true,
      maxInFlightRequests: 1,
      allowAutoTopicCreation: false,
    });
  }

  async start(): Promise<void> {
    try {
      await this.producer.connect();
      this.connected = true;
    } catch (err) {
      this.log.warn({ err: String(err) }, 'kafka unreachable at start; audit records are buffered');
    }
    this.timer = setInterval(() => void this.flush(), this.opts.lingerMs);
    this.timer.unref();
  }

  get depth(): number {
    return this.buffer.length;
  }

  publish(record: AuditRecord): void {
    this.buffer.push({ key: record.score_id, value: JSON.stringify(record) });
    if (this.buffer.length > this.opts.maxBuffered) {
      const over = this.buffer.length - this.opts.maxBuffered;
      this.buffer.splice(0, over);
      this.dropped += over;
      this.log.error({ dropped: over }, 'audit buffer full: dropped oldest records');
    }
    if (this.buffer.length >= this.opts.batchSize) void this.flush();
  }

  /** Sends everything buffered now; concurrent callers share one in-flight flush. */
  flush(): Promise<void> {
    if (this.flushing) return this.flushing;
    if (this.buffer.length === 0) return Promise.resolve();
    this.flushing = this.sendAll().finally(() => {
      this.flushing = undefined;
    });
    return this.flushing;
  }

  private async sendAll(): Promise<void> {
    while (this.buffer.length > 0) {
      const batch = this.buffer.splice(0, this.opts.batchSize);
      try {
        if (!this.connected) {
          await this.producer.connect();
          this.connected = true;
        }
        await this.producer.sendBatch({
          acks: -1,
          topicMessages: [{ topic: SCORES_TOPIC, messages: batch }],
        });
        this.sent += batch.length;
      } catch (err) {
        this.buffer.unshift(...batch);
        this.log.warn({ err: String(err), pending: this.buffer.length }, 'audit batch not sent; will retry');
        return;
      }
    }
  }

  /** Flushes what is buffered (retrying until `deadlineMs`) and disconnects. */
  async close(deadlineMs = 10_000): Promise<void> {
    clearInterval(this.timer);
    const until = Date.now() + deadlineMs;
    while (this.buffer.length > 0 && Date.now() < until) {
      await this.flush();
      if (this.buffer.length > 0) await new Promise((r) => setTimeout(r, 200));
    }
    if (this.buffer.length > 0)
      this.log.error({ lost: this.buffer.length }, 'audit records not delivered at shutdown');
    await this.producer.disconnect().catch(() => undefined);
  }
}
