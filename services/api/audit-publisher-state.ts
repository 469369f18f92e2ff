/**
 * The audit publisher's decisions without its I/O: which state it is in, when Kafka counts as
 * gone, when to probe, replay, go direct or give Kafka up, and which lane works next. The
 * publisher (audit-publisher.ts) feeds it events and performs the actions it returns; the clock
 * is injected, so every transition is tested without Kafka, a disk or a timer.
 */

/**
 * The publisher's states.
 * - `spilling`: Kafka unreachable (also at start). Records go only to the journal; a probe
 *   reconnects in the background.
 * - `replaying`: connected. New records go to Kafka (raced by the journal); the segments spilled
 *   before are sent in the gaps between live batches, oldest first, and deleted once acknowledged.
 * - `direct`: journal empty. New records go to Kafka, raced by the journal.
 * - `closing`: SIGTERM. Live sends finish within the deadline; whatever is left goes to the journal.
 */
export type PublisherState = 'spilling' | 'replaying' | 'direct' | 'closing';

export const PUBLISHER_STATES: readonly PublisherState[] = ['spilling', 'replaying', 'direct', 'closing'];

export type PublisherEvent =
  /** The publisher started: the first probe goes at once. */
  | { type: 'start' }
  /** A probe connected a producer. */
  | { type: 'connected' }
  /** A probe could not connect. */
  | { type: 'connect-failed' }
  /** A job (a live batch or a replayed segment) went to the Kafka lane. */
  | { type: 'send-started' }
  /** A Kafka job started in `epoch` finished: acknowledged, or failed (`why`). */
  | { type: 'send-ok'; epoch: number }
  | { type: 'send-failed'; epoch: number; why: string }
  /** Records now waiting for the Kafka lane. */
  | { type: 'queued'; waiting: number }
  /** Time passed (the watchdog, or any pump): a send may have stalled. */
  | { type: 'tick' }
  /** Every segment spilled before the connection was replayed. */
  | { type: 'replay-done' }
  /** SIGTERM. */
  | { type: 'close' }
  /** The shutdown deadline passed, or the live sends finished before it. */
  | { type: 'deadline' };

export type PublisherAction =
  /**
   * Drop the producer and forget the live segments' accounting: every record not acknowledged is
   * the journal's now, and segments written live are replayed whole later (duplicates collapse
   * downstream). Work of older epochs must not count any more.
   */
  | { type: 'give-up-kafka' }
  /** Try to connect after `afterMs`. */
  | { type: 'probe'; afterMs: number }
  /** Adopt the producer just connected. */
  | { type: 'adopt-producer' }
  /** Disconnect the producer just connected: the publisher no longer wants one. */
  | { type: 'discard-producer' }
  /**
   * Seal the journal (segments up to here are replayed, later ones are live) and resend every
   * record not yet durable.
   */
  | { type: 'seal-journal' }
  /** Closing: cancel the probe and replay nothing more. */
  | { type: 'stop-background' };

export interface Step {
  state: PublisherState;
  actions: PublisherAction[];
  /** Set when the state changed: where from and why, for the operators' log. */
  transition?: { from: PublisherState; why: string };
}

/** What the Kafka lane takes next. */
export type KafkaJob =
  | { type: 'none' }
  | { type: 'send-live' }
  | { type: 'replay'; segment: number }
  /** Nothing left to replay: feed `replay-done`. */
  | { type: 'drained' };

export interface MachineOptions {
  /** A send unanswered this long counts as Kafka gone. */
  stallMs: number;
  /** Records waiting for Kafka beyond this also count as Kafka gone (bounds memory). */
  maxQueued: number;
  /** Pause between attempts to reach Kafka while spilling. */
  probeMs: number;
  /** A record Kafka has not acknowledged this long after it was published is journalled too. */
  journalAfterMs: number;
}

export class PublisherMachine {
  private current: PublisherState = 'spilling';
  private epochNo = 0;
  private connected = false;
  /** The Kafka lane's job: when it started and in which epoch. */
  private inFlight: { since: number; epoch: number } | undefined;
  private readonly opts: MachineOptions;
  private readonly now: () => number;

  constructor(opts: MachineOptions, now: () => number) {
    this.opts = opts;
    this.now = now;
  }

  get state(): PublisherState {
    return this.current;
  }

  /**
   * Bumped whenever Kafka is given up on: work started in an older epoch (a send still hanging,
   * a journal append queued before) must not change the accounting of the current one.
   */
  get epoch(): number {
    return this.epochNo;
  }

  /** Kafka is connected and takes new records (a closing publisher still finishes its sends). */
  get live(): boolean {
    return this.connected;
  }

  /** A Kafka job is running (of the current epoch). */
  get sending(): boolean {
    return this.inFlight !== undefined;
  }

  handle(event: PublisherEvent): Step {
    const from = this.current;
    switch (event.type) {
      case 'start':
        return this.stay([{ type: 'probe', afterMs: 0 }]);
      case 'connected':
        if (from !== 'spilling') return this.stay([{ type: 'discard-producer' }]);
        this.connected = true;
        return this.go('replaying', 'kafka reachable', [
          { type: 'adopt-producer' },
          { type: 'seal-journal' },
        ]);
      case 'connect-failed':
        return this.stay(from === 'spilling' ? [{ type: 'probe', afterMs: this.opts.probeMs }] : []);
      case 'send-started':
        this.inFlight = { since: this.now(), epoch: this.epochNo };
        return this.stay([]);
      case 'send-ok':
        if (event.epoch === this.epochNo) this.inFlight = undefined;
        return this.stay([]);
      case 'send-failed':
        if (event.epoch !== this.epochNo) return this.stay([]);
        this.inFlight = undefined;
        return this.kafkaGone(event.why);
      case 'queued':
        return event.waiting > this.opts.maxQueued
          ? this.kafkaGone('too many records waiting')
          : this.stay([]);
      case 'tick':
        return this.inFlight && this.now() - this.inFlight.since > this.opts.stallMs
          ? this.kafkaGone('send unanswered')
          : this.stay([]);
      case 'replay-done':
        return from === 'replaying' ? this.go('direct', 'journal replayed', []) : this.stay([]);
      case 'close':
        return from === 'closing'
          ? this.stay([])
          : this.go('closing', 'shutdown', [{ type: 'stop-background' }]);
      case 'deadline':
        return from === 'closing' ? this.stay(this.giveUp()) : this.stay([]);
    }
  }

  /**
   * What the Kafka lane takes next: nothing while a job runs or Kafka is not live; new records
   * before replayed ones (a replay never holds requests back); `replayQueue` undefined until the
   * journal is sealed.
   */
  kafkaJob(waiting: number, replayQueue: readonly number[] | undefined): KafkaJob {
    if (this.inFlight || !this.connected) return { type: 'none' };
    if (waiting > 0) return { type: 'send-live' };
    if (this.current !== 'replaying' || replayQueue === undefined) return { type: 'none' };
    const segment = replayQueue[0];
    return segment === undefined ? { type: 'drained' } : { type: 'replay', segment };
  }

  /**
   * Records published at or before this are due in the journal: while Kafka is live, those it
   * left unacknowledged for `journalAfterMs`; otherwise all of them at once.
   */
  journalDueBefore(): number {
    return this.connected ? this.now() - this.opts.journalAfterMs : Number.POSITIVE_INFINITY;
  }

  /** A failed, stalled or overloaded Kafka: to `spilling`, unless closing (its deadline decides). */
  private kafkaGone(why: string): Step {
    if (this.current !== 'direct' && this.current !== 'replaying') return this.stay([]);
    return this.go('spilling', why, [...this.giveUp(), { type: 'probe', afterMs: this.opts.probeMs }]);
  }

  private giveUp(): PublisherAction[] {
    this.epochNo++;
    this.connected = false;
    this.inFlight = undefined;
    return [{ type: 'give-up-kafka' }];
  }

  private go(to: PublisherState, why: string, actions: PublisherAction[]): Step {
    const from = this.current;
    this.current = to;
    return { state: to, actions, transition: { from, why } };
  }

  private stay(actions: PublisherAction[]): Step {
    return { state: this.current, actions };
  }
}
