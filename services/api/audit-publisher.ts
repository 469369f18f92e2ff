import { CompressionTypes, type Kafka, type Producer } from 'kafkajs';
import { SCORES_TOPIC } from '../../shared/clients/kafka.ts';
import type { Logger } from '../../shared/logger.ts';
import type { AuditJournal, JournalEntry } from './audit-journal.ts';
import { StickyPartitioner } from './sticky-partitioner.ts';

export interface AuditPublisherOptions {
  /** Flush when this many records are waiting; also the most records per `sendBatch`. */
  batchSize: number;
  /** Flush at least this often while records are waiting. */
  lingerMs: number;
  /** A send still unanswered after this long makes newer records spill to the journal. */
  spillAfterMs: number;
  /** Pause between attempts to reach Kafka again while spilling. */
  probeMs: number;
}

export interface AuditCounters {
  sent: number;
  spilled: number;
  replayed: number;
  dropped: number;
  journalBytes: number;
}

const DEFAULTS: AuditPublisherOptions = { batchSize: 500, lingerMs: 20, spillAfterMs: 250, probeMs: 1_000 };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Streams audit records to Kafka without the request ever waiting: `publish` only appends to an
 * in-process buffer, flushed with one `sendBatch` by size or time (kafkajs has no linger of its
 * own). While Kafka is unreachable, or a send stalls, records spill to the fsynced local journal
 * instead of piling up in memory; a background loop reconnects and replays the journal, oldest
 * first, then returns to direct sends.
 *
 * Every record is acknowledged by Kafka or fsynced to the journal within about `spillAfterMs`
 * (+ at most two fsyncs) of `publish`: a send slower than that has its batch copied to the
 * journal too.
 * So a SIGKILL loses at most the records published in that last window (in steady state, the
 * last `lingerMs`), never more than one batch in flight plus the one being filled. SIGTERM
 * (`close`) sends them, or journals them when Kafka is down, and loses nothing.
 */
export class AuditPublisher {
  private readonly kafka: Kafka;
  private readonly journal: AuditJournal;
  private readonly opts: AuditPublisherOptions;
  private readonly log: Logger;
  private producer: Producer | undefined;
  private readonly partitioner = new StickyPartitioner();
  /** False after a failed send: the producer is rebuilt before the next use. */
  private healthy = false;
  private mode: 'kafka' | 'spill' = 'spill';
  private buffer: JournalEntry[] = [];
  private inflight: Promise<void> | undefined;
  /** The batch being sent, since when, and whether a copy already went to the journal. */
  private sending: { batch: JournalEntry[]; since: number; journalled: boolean } | undefined;
  private spills: Promise<void> = Promise.resolve();
  /** Spilled records the journal has not taken yet. */
  private unwritten: JournalEntry[] = [];
  private recovering: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private closing = false;
  /** Counters for logs and tests. */
  readonly stats = { sent: 0, spilled: 0, replayed: 0, dropped: 0 };

  constructor(kafka: Kafka, journal: AuditJournal, log: Logger, opts: Partial<AuditPublisherOptions> = {}) {
    this.kafka = kafka;
    this.journal = journal;
    this.log = log;
    this.opts = { ...DEFAULTS, ...opts };
  }

  /** Opens the journal and starts delivery; never fails because Kafka is down. */
  async start(): Promise<void> {
    await this.journal.open();
    this.timer = setInterval(() => this.flush(), this.opts.lingerMs);
    this.timer.unref();
    // Start in spill mode: the recovery loop connects, replays what a previous run journalled,
    // and only then switches to direct sends, so old records go out before new ones.
    this.enterSpill();
  }

  /** Delivery counters since start and the journal's size on disk, for metrics. */
  counters(): AuditCounters {
    return { ...this.stats, journalBytes: this.journal.bytes };
  }

  /** Records waiting in memory. */
  get depth(): number {
    return this.buffer.length;
  }

  /** Queues one serialized audit record (see serializeAuditRecord); never blocks, never throws. */
  publish(scoreId: string, recordJson: string): void {
    this.buffer.push({ key: scoreId, value: recordJson });
    if (this.buffer.length >= this.opts.batchSize) this.flush();
  }

  private flush(): void {
    const s = this.sending;
    const stalled = s !== undefined && Date.now() - s.since > this.opts.spillAfterMs;
    if (s && stalled && !s.journalled) {
      // Bounds what a SIGKILL can take: a batch is on disk once its send is slow, whatever the
      // send's outcome. Should the send still succeed, replay writes it twice: harmless downstream.
      s.journalled = true;
      this.spill(s.batch);
      this.enterSpill();
    }
    if (this.buffer.length === 0) return;
    if (this.mode === 'spill' || stalled || (s && this.buffer.length >= this.opts.batchSize)) {
      this.spill(this.buffer.splice(0));
      this.enterSpill();
      return;
    }
    if (this.inflight) return;
    this.inflight = this.sendBuffered().finally(() => {
      this.inflight = undefined;
    });
  }

  /** Sends full batches back to back, then the remainder; a failure journals the batch. */
  private async sendBuffered(): Promise<void> {
    do {
      const sending = {
        batch: this.buffer.splice(0, this.opts.batchSize),
        since: Date.now(),
        journalled: false,
      };
      this.sending = sending;
      try {
        await this.send(sending.batch);
        this.stats.sent += sending.batch.length;
      } catch (err) {
        this.healthy = false;
        this.log.warn(
          { err: String(err), records: sending.batch.length },
          'kafka send failed; spilling audit records',
        );
        if (!sending.journalled) this.spill(sending.batch);
        this.enterSpill();
        return;
      } finally {
        this.sending = undefined;
      }
    } while (this.buffer.length >= this.opts.batchSize && this.mode === 'kafka');
  }

  private async send(messages: JournalEntry[]): Promise<void> {
    if (!this.producer) throw new Error('no kafka producer');
    // gzip: a batch of JSON records shrinks several-fold, so kafkajs's pure-JS CRC32C (a visible
    // share of the score path's CPU) runs over far fewer bytes, and zlib works off the event loop.
    this.partitioner.advance();
    await this.producer.sendBatch({
      acks: -1,
      compression: CompressionTypes.GZIP,
      topicMessages: [{ topic: SCORES_TOPIC, messages }],
    });
  }

  /** Queues records for the journal; `spills` resolves once everything queued so far is on disk. */
  private spill(entries: JournalEntry[]): void {
    this.stats.spilled += entries.length;
    for (const e of entries) this.unwritten.push(e);
    this.spills = this.spills.then(() => this.writeUnwritten());
  }

  /**
   * Group commit: one append (one fsync) takes every record queued while the previous one ran,
   * so a disk slower than the 20 ms flush tick delays a record by at most two fsyncs instead of
   * letting a queue of one-tick appends grow behind it.
   */
  private async writeUnwritten(): Promise<void> {
    if (this.unwritten.length === 0) return;
    const entries = this.unwritten;
    this.unwritten = [];
    try {
      const refused = await this.journal.append(entries);
      if (refused > 0) {
        this.stats.dropped += refused;
        this.log.error({ dropped: refused }, 'audit journal full: records lost');
      }
    } catch (err) {
      this.stats.dropped += entries.length;
      this.log.error(
        { err: String(err), dropped: entries.length },
        'audit journal write failed: records lost',
      );
    }
  }

  private enterSpill(): void {
    this.mode = 'spill';
    this.recovering ??= this.recover().finally(() => {
      this.recovering = undefined;
    });
  }

  /** Reconnects (if needed) and replays the journal until it is empty, then resumes direct sends. */
  private async recover(): Promise<void> {
    let wait = 0;
    while (!this.closing) {
      if (wait > 0) await sleep(wait);
      wait = this.opts.probeMs;
      await this.inflight;
      try {
        if (!this.healthy) await this.reconnect();
        // Journal writes queued so far must be on disk before replay reads the segments.
        await this.spills;
        await this.replayJournal();
        this.mode = 'kafka';
        // A spill queued just before the switch lands in a segment the replay did not see.
        await this.spills;
        if (await this.journal.hasPending()) await this.replayJournal();
        return;
      } catch (err) {
        this.healthy = false;
        this.mode = 'spill';
        if (!this.closing)
          this.log.warn({ err: String(err) }, 'kafka unreachable; audit records spill to journal');
      }
    }
  }

  private async replayJournal(): Promise<void> {
    const before = this.journal.bytes;
    await this.journal.replay(async (batch) => {
      if (this.closing) throw new Error('closing');
      await this.send(batch);
      this.stats.replayed += batch.length;
    }, this.opts.batchSize);
    if (before > 0) this.log.info({ replayed: this.stats.replayed }, 'audit journal replayed to kafka');
  }

  /** A fresh producer after a failure: an idempotent producer's sequence state may be stale. */
  private async reconnect(): Promise<void> {
    const old = this.producer;
    this.producer = undefined;
    await old?.disconnect().catch(() => undefined);
    const producer = this.kafka.producer({
      idempotent: true,
      maxInFlightRequests: 1,
      allowAutoTopicCreation: false,
      createPartitioner: this.partitioner.create,
    });
    try {
      await producer.connect();
    } catch (err) {
      await producer.disconnect().catch(() => undefined);
      throw err;
    }
    this.producer = producer;
    this.healthy = true;
  }

  /**
   * Delivers everything still in memory: to Kafka when it is reachable, else to the journal (the
   * next start replays it). Stops replaying the journal; what remains there waits for next start.
   */
  async close(deadlineMs = 5_000): Promise<void> {
    clearInterval(this.timer);
    const until = Date.now() + deadlineMs;
    const deadline = () => sleep(Math.max(0, until - Date.now()));
    await Promise.race([this.inflight, deadline()]);
    while (
      this.buffer.length > 0 &&
      this.mode === 'kafka' &&
      this.healthy &&
      !this.inflight &&
      Date.now() < until
    ) {
      this.inflight = this.sendBuffered().finally(() => {
        this.inflight = undefined;
      });
      await Promise.race([this.inflight, deadline()]);
    }
    this.closing = true;
    // A send still unanswered at the deadline may or may not land: journal it too (at most a duplicate).
    if (this.sending && !this.sending.journalled) {
      this.sending.journalled = true;
      this.spill(this.sending.batch);
    }
    if (this.buffer.length > 0) this.spill(this.buffer.splice(0));
    await this.spills;
    // A reconnect attempt against a dead broker can take seconds; the journal is safe without it.
    await Promise.race([this.recovering, deadline()]);
    await this.journal.close();
    await this.producer?.disconnect().catch(() => undefined);
    this.log.info({ ...this.stats }, 'audit publisher closed');
  }
}
