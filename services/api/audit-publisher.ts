import { CompressionTypes, type Kafka, type Message, type Producer } from 'kafkajs';
import { SCORES_TOPIC } from '../../shared/clients/kafka.ts';
import type { Logger } from '../../shared/logger.ts';
import type { AuditJournal, JournalEntry } from './audit-journal.ts';
import { StickyPartitioner } from './sticky-partitioner.ts';
import { errorMessage } from '../../shared/error-message.ts';
import {
  PublisherMachine,
  type PublisherAction,
  type PublisherEvent,
  type PublisherState,
} from './audit-publisher-state.ts';

export interface AuditPublisherOptions {
  /** Topic of records published without one (`scores.v1`). */
  topic: string;
  /** Most records per `sendBatch` and per replayed chunk. */
  batchSize: number;
  /**
   * A record Kafka has not acknowledged this long after `publish` is written to the journal too
   * (group commit), so its request waits at most about this plus one fsync while Kafka is slow.
   * Kafka usually answers first, and then the record never touches the disk.
   */
  journalAfterMs: number;
  /** A send unanswered this long counts as Kafka gone: records go to the journal until it answers. */
  stallMs: number;
  /** Records waiting for Kafka beyond this also count as Kafka gone (bounds memory). */
  maxQueued: number;
  /** Pause between attempts to reach Kafka while spilling. */
  probeMs: number;
  /** Told how long each record took to become durable, and which lane made it so (for metrics). */
  onDurable?: (lane: DurableLane, ms: number) => void;
}

export type DurableLane = 'kafka' | 'journal';

export interface AuditCounters {
  sent: number;
  /** Records fsynced to the journal while Kafka was live: it was slower than `journalAfterMs`. */
  raced: number;
  spilled: number;
  replayed: number;
  /** Records the journal refused (full or failing disk). */
  dropped: number;
  journalBytes: number;
}

const DEFAULTS: AuditPublisherOptions = {
  topic: SCORES_TOPIC,
  batchSize: 500,
  journalAfterMs: 5,
  stallMs: 1_000,
  maxQueued: 20_000,
  probeMs: 1_000,
};

/** One published record until it is durable: acknowledged by Kafka or fsynced to the journal. */
interface Pending {
  entry: JournalEntry;
  at: number;
  durable: boolean;
  resolve: () => void;
  reject: (err: Error) => void;
  /** A journal segment that holds this record and is deleted once Kafka has all of its records. */
  segment?: number;
}

export class AuditDurabilityError extends Error {}

/**
 * Delivers audit records to Kafka and makes each one durable before its request may answer:
 * `publish` resolves once Kafka acknowledged the record or the node's journal fsynced it,
 * whichever comes first. Both lanes are group commits: one `sendBatch` in flight, taking every
 * record published while the previous one ran, and one journal append+fsync at a time, likewise.
 * So a SIGKILL loses nothing a request was answered for, and no request waits for Kafka to be
 * reachable: while it is down, or slower than `journalAfterMs`, the journal answers.
 *
 * Segments written while Kafka was reachable are deleted once Kafka acknowledged all of their
 * records; segments written while it was not are replayed when it returns. A crash may thus
 * replay records Kafka already has: duplicates, which the sink's ReplacingMergeTree collapses.
 */
export class AuditPublisher {
  private readonly kafka: Kafka;
  private readonly journal: AuditJournal;
  private readonly opts: AuditPublisherOptions;
  private readonly log: Logger;
  private readonly partitioner = new StickyPartitioner();

  /** Every decision: the state, the epoch, when Kafka counts as gone, which lane works next. */
  private readonly machine: PublisherMachine;
  private producer: Producer | undefined;
  /** A producer a probe just connected, until the machine says to adopt or discard it. */
  private connecting: Producer | undefined;
  /** Records for the Kafka lane, oldest first. */
  private toSend: Pending[] = [];
  /** Records not yet durable that the journal lane has not taken, oldest first. */
  private toJournal: Pending[] = [];
  private unsettled = 0;
  /** Segments written while Kafka was reachable, and how many of their records it has not acknowledged. */
  private readonly liveSegments = new Map<number, number>();
  /** Segments spilled while Kafka was away, still to replay; undefined until the journal is sealed. */
  private replayQueue: number[] | undefined;
  /** The two lanes: at most one Kafka job and one journal job at a time. */
  private sending: Promise<void> | undefined;
  private journalling: Promise<void> | undefined;
  private kick: NodeJS.Immediate | undefined;
  private dueTimer: NodeJS.Timeout | undefined;
  private probeTimer: NodeJS.Timeout | undefined;
  private watchdog: NodeJS.Timeout | undefined;
  /** Counters for logs, metrics and tests. */
  readonly stats = { sent: 0, journalled: 0, spilled: 0, replayed: 0, refused: 0 };

  constructor(kafka: Kafka, journal: AuditJournal, log: Logger, opts: Partial<AuditPublisherOptions> = {}) {
    this.kafka = kafka;
    this.journal = journal;
    this.log = log;
    this.opts = { ...DEFAULTS, ...opts };
    this.machine = new PublisherMachine(this.opts, () => performance.now());
  }

  /** Opens the journal and starts connecting in the background; never waits for Kafka. */
  async start(): Promise<void> {
    await this.journal.open();
    this.watchdog = setInterval(() => this.pump(), Math.max(10, this.opts.stallMs / 4));
    this.watchdog.unref();
    // Starts in `spilling`: the probe connects, replays what a previous run journalled, then
    // switches to direct sends.
    this.dispatch({ type: 'start' });
  }

  /** The current state, for metrics and tests. */
  get state(): PublisherState {
    return this.machine.state;
  }

  /** Delivery counters since start and the journal's size on disk, for metrics. */
  counters(): AuditCounters {
    const { sent, journalled, spilled, replayed, refused } = this.stats;
    return {
      sent,
      raced: journalled - spilled,
      spilled,
      replayed,
      dropped: refused,
      journalBytes: this.journal.bytes,
    };
  }

  /** Records published and not yet durable. */
  get depth(): number {
    return this.unsettled;
  }

  /**
   * Takes one serialized record (see serializeAuditRecord) for `topic` (default: the
   * constructor's). Resolves once it is durable; rejects only when neither Kafka nor the journal
   * could take it (the journal full or failing, Kafka away).
   */
  publish(key: string, value: string, topic?: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const entry: JournalEntry =
        topic === undefined || topic === this.opts.topic ? { key, value } : { key, value, topic };
      const p: Pending = { entry, at: performance.now(), durable: false, resolve, reject };
      this.unsettled++;
      this.toJournal.push(p);
      if (this.machine.live) {
        this.toSend.push(p);
        this.dispatch({ type: 'queued', waiting: this.toSend.length });
      }
      // Once per event-loop turn: records published in one turn share a send and an fsync.
      this.kick ??= setImmediate(() => {
        this.kick = undefined;
        this.pump();
      });
    });
  }

  /** Feeds one event to the machine and performs what it decides; the one place the state changes. */
  private dispatch(event: PublisherEvent): void {
    const step = this.machine.handle(event);
    if (step.transition) {
      const { from, why } = step.transition;
      if (step.state === 'spilling')
        this.log.warn({ from, why }, 'kafka unreachable; audit records go to the journal');
      else this.log.info({ from, to: step.state, why }, `audit publisher ${step.state}`);
    }
    for (const action of step.actions) this.perform(action);
    if (step.transition) this.pump();
  }

  private perform(action: PublisherAction): void {
    switch (action.type) {
      case 'give-up-kafka': {
        // Everything not acknowledged is the journal's now; segments written live are replayed
        // whole when Kafka returns (records it already had become duplicates, collapsed downstream).
        this.toSend = [];
        this.replayQueue = undefined;
        this.liveSegments.clear();
        this.sending = undefined;
        const old = this.producer;
        this.producer = undefined;
        void old?.disconnect().catch(() => undefined);
        break;
      }
      case 'probe':
        this.probe(action.afterMs);
        break;
      case 'adopt-producer':
        this.producer = this.connecting;
        this.connecting = undefined;
        break;
      case 'discard-producer':
        void this.connecting?.disconnect().catch(() => undefined);
        this.connecting = undefined;
        break;
      case 'seal-journal': {
        // Sealed in the journal lane: segments up to here are replayed, later ones are live.
        this.toSend = this.toJournal.filter((p) => !p.durable);
        this.replayQueue = undefined;
        const epoch = this.machine.epoch;
        this.journalJob(async () => {
          const seqs = await this.journal.seal();
          if (this.machine.epoch === epoch && this.machine.state === 'replaying') this.replayQueue = seqs;
        });
        break;
      }
      case 'stop-background':
        this.replayQueue = [];
        clearTimeout(this.probeTimer);
        break;
    }
  }

  /** Starts whatever work the lanes can take now. */
  private pump(): void {
    this.pumpKafka();
    this.pumpJournal();
  }

  private pumpKafka(): void {
    if (this.machine.sending) this.dispatch({ type: 'tick' });
    const job = this.machine.kafkaJob(this.toSend.length, this.replayQueue);
    switch (job.type) {
      case 'none':
        return;
      case 'send-live':
        return this.runSend(() => this.sendLive());
      case 'replay':
        return this.runSend(() => this.replaySegment(job.segment));
      case 'drained':
        return this.dispatch({ type: 'replay-done' });
    }
  }

  /** Runs one job in the Kafka lane and tells the machine how it ended. */
  private runSend(job: () => Promise<void>): void {
    const epoch = this.machine.epoch;
    this.dispatch({ type: 'send-started' });
    const sending = job().then(
      () => this.dispatch({ type: 'send-ok', epoch }),
      (err: unknown) => this.dispatch({ type: 'send-failed', epoch, why: errorMessage(err) }),
    );
    this.sending = sending;
    void sending.finally(() => {
      if (this.sending === sending) this.sending = undefined;
      this.pump();
    });
  }

  /** One batch of new records: every record published while the previous send ran. */
  private async sendLive(): Promise<void> {
    const batch = this.toSend.splice(0, this.opts.batchSize);
    await this.send(batch.map((p) => p.entry));
    this.stats.sent += batch.length;
    for (const p of batch) this.acknowledged(p);
  }

  /** One spilled segment, in chunks, with new records let out between chunks: a replay never holds requests back. */
  private async replaySegment(seq: number): Promise<void> {
    const entries = await this.journal.read(seq);
    for (let i = 0; i < entries.length; i += this.opts.batchSize) {
      if (this.machine.state !== 'replaying') return;
      const chunk = entries.slice(i, i + this.opts.batchSize);
      await this.send(chunk);
      this.stats.replayed += chunk.length;
      if (this.toSend.length > 0) await this.sendLive();
    }
    if (this.machine.state !== 'replaying') return;
    await this.journal.remove(seq);
    if (this.replayQueue?.[0] === seq) this.replayQueue.shift();
    this.log.info({ segment: seq, records: entries.length }, 'audit journal segment replayed to kafka');
  }

  private async send(entries: JournalEntry[]): Promise<void> {
    const producer = this.producer;
    if (!producer) throw new Error('no kafka producer');
    const byTopic = new Map<string, Message[]>();
    for (const e of entries) {
      const topic = e.topic ?? this.opts.topic;
      let list = byTopic.get(topic);
      if (!list) byTopic.set(topic, (list = []));
      list.push({ key: e.key, value: e.value });
    }
    this.partitioner.advance();
    // gzip: a batch of JSON records shrinks several-fold, so kafkajs's pure-JS CRC32C (a visible
    // share of the score path's CPU) runs over far fewer bytes, and zlib works off the event loop.
    await producer.sendBatch({
      acks: -1,
      compression: CompressionTypes.GZIP,
      topicMessages: [...byTopic].map(([topic, messages]) => ({ topic, messages })),
    });
  }

  /** Kafka has the record: it is durable, and its live segment is one record closer to deletion. */
  private acknowledged(p: Pending): void {
    this.settle(p, 'kafka');
    const seq = p.segment;
    if (seq === undefined) return;
    const left = this.liveSegments.get(seq);
    if (left === undefined) return;
    if (left > 1) this.liveSegments.set(seq, left - 1);
    else {
      this.liveSegments.delete(seq);
      this.retire(seq);
    }
  }

  /** Deletes a live segment once Kafka has all of it; checked in the journal lane, so no append races it. */
  private retire(seq: number): void {
    const epoch = this.machine.epoch;
    this.journalJob(async () => {
      if (this.machine.epoch === epoch && !this.liveSegments.has(seq)) await this.journal.remove(seq);
    });
  }

  private settle(p: Pending, lane: DurableLane): void {
    if (p.durable) return;
    p.durable = true;
    this.unsettled--;
    this.opts.onDurable?.(lane, performance.now() - p.at);
    p.resolve();
  }

  /**
   * Group commit: one append+fsync takes every record that is due. While Kafka is live a record
   * is due once it went unacknowledged for `journalAfterMs`; otherwise at once.
   */
  private pumpJournal(): void {
    if (this.journalling) return;
    const q = this.toJournal;
    while (q.length > 0 && q[0]!.durable) q.shift();
    if (q.length === 0) return;
    const live = this.machine.live;
    const dueBefore = this.machine.journalDueBefore();
    if (q[0]!.at > dueBefore) {
      this.dueTimer ??= setTimeout(
        () => {
          this.dueTimer = undefined;
          this.pump();
        },
        q[0]!.at - dueBefore + 1,
      );
      return;
    }
    let n = 0;
    while (n < q.length && q[n]!.at <= dueBefore) n++;
    const group = q.splice(0, n).filter((p) => !p.durable);
    const tracked = live ? this.machine.epoch : undefined;
    this.journalJob(() => this.write(group, tracked));
  }

  /** One group commit; `trackedEpoch` set when Kafka is live, so the segment can go once it has all. */
  private async write(group: Pending[], trackedEpoch: number | undefined): Promise<void> {
    const todo = group.filter((p) => !p.durable);
    if (todo.length === 0) return;
    let written: { seq: number; refused: number };
    try {
      written = await this.journal.append(todo.map((p) => p.entry));
    } catch (err) {
      written = { seq: -1, refused: todo.length };
      this.log.error({ err, records: todo.length }, 'audit journal write failed');
    }
    const kept = todo.length - written.refused;
    this.stats.journalled += kept;
    const tracked = trackedEpoch === this.machine.epoch;
    // Written while Kafka was away: these wait in the journal for replay.
    if (!tracked) this.stats.spilled += kept;
    for (let i = 0; i < todo.length; i++) {
      const p = todo[i]!;
      if (i >= kept) this.refused(p);
      else {
        // Kafka may have acknowledged it during the fsync: then the segment need not wait for it.
        if (tracked && !p.durable) {
          p.segment = written.seq;
          this.liveSegments.set(written.seq, (this.liveSegments.get(written.seq) ?? 0) + 1);
        }
        this.settle(p, 'journal');
      }
    }
    if (tracked && kept > 0 && !this.liveSegments.has(written.seq)) await this.journal.remove(written.seq);
  }

  /** The journal refused a record: Kafka may still take it, else its request fails (never a lost 200). */
  private refused(p: Pending): void {
    if (p.durable) return;
    this.stats.refused++;
    if (this.machine.live) {
      this.toJournal.push(p); // tried again; meanwhile Kafka may acknowledge it
      return;
    }
    p.durable = true;
    this.unsettled--;
    p.reject(new AuditDurabilityError('audit record could not be made durable'));
  }

  /** Runs one job in the journal lane: appends, seals and deletions never overlap. */
  private journalJob(job: () => Promise<void>): void {
    const run: Promise<void> = (this.journalling ?? Promise.resolve()).then(job).catch((err: unknown) => {
      this.log.error({ err }, 'audit journal job failed');
    });
    this.journalling = run;
    void run.finally(() => {
      if (this.journalling === run) this.journalling = undefined;
      this.pump();
    });
  }

  /** Reconnects in the background until Kafka answers; requests never wait on it. */
  private probe(afterMs: number): void {
    clearTimeout(this.probeTimer);
    const attempt = async (): Promise<void> => {
      if (this.machine.state !== 'spilling') return;
      try {
        this.connecting = await this.connect();
      } catch (err) {
        this.log.warn({ err }, 'kafka still unreachable');
        this.dispatch({ type: 'connect-failed' });
        return;
      }
      this.dispatch({ type: 'connected' });
    };
    // The attempt catches and logs its own failure: nothing is left for the timer to await.
    this.probeTimer = setTimeout(() => void attempt(), afterMs);
    this.probeTimer.unref();
  }

  /** A fresh idempotent producer each time: after a failure its sequence state may be stale. */
  private async connect(): Promise<Producer> {
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
    return producer;
  }

  /**
   * SIGTERM: live sends get until the deadline to be acknowledged; every record still not
   * durable then goes to the journal (the next start with the same journal replays it).
   */
  async close(deadlineMs = 5_000): Promise<void> {
    const until = Date.now() + deadlineMs;
    const remaining = () => new Promise((r) => setTimeout(r, Math.max(0, until - Date.now())));
    this.dispatch({ type: 'close' });
    clearInterval(this.watchdog);
    clearTimeout(this.dueTimer);
    while (Date.now() < until && this.machine.live && (this.sending || this.toSend.length > 0)) {
      this.pumpKafka();
      if (!this.sending) break;
      await Promise.race([this.sending, remaining()]);
    }
    // What Kafka has not acknowledged by now goes to the journal at once.
    this.dispatch({ type: 'deadline' });
    this.pumpJournal();
    while (this.journalling && Date.now() < until) await Promise.race([this.journalling, remaining()]);
    await this.journal.close();
    this.log.info({ ...this.stats }, 'audit publisher closed');
  }
}
