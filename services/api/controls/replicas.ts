import type { RedisClient } from '../../../shared/clients/redis.ts';
import type { Logger } from '../../../shared/logger.ts';

/**
 * Redis replicates asynchronously: a write the primary acknowledged and had not yet sent to its
 * replica is lost if the primary dies and the replica takes over (a credit billed, then gone).
 * With `waitReplicas` > 0 an admission is answered once that many replicas hold its writes:
 * `WAIT` on the connection that ran the script.
 */
export interface ReplicaWaitOptions {
  /** Replicas that must acknowledge (REDIS_WAIT_REPLICAS): 0 on one server, 1 with a replica. */
  waitReplicas?: number;
  /** How long `WAIT` may block (REDIS_WAIT_TIMEOUT_MS); below the client's command timeout. */
  waitTimeoutMs?: number;
  /** Called for each admission `WAIT` did not confirm in time (the request is answered anyway). */
  onUnreplicated?: () => void;
}

type PipelineReplies = [Error | null, unknown][] | null | undefined;

/** What `WAIT` answered in a pipeline of [GET, WAIT]: the replicas that acknowledged, or why none. */
export function ackedOf(replies: PipelineReplies): { acked: number; error?: unknown } {
  const [err, n] = replies?.[1] ?? [new Error('WAIT not answered'), 0];
  if (err) return { acked: 0, error: err };
  return { acked: Number(n) };
}

/** Tracks a spell of unconfirmed admissions, so that it is logged once when it starts and ends. */
export class Spell {
  private on = false;

  /** 'began' or 'ended' when `confirmed` changes the spell; undefined while it holds. */
  note(confirmed: boolean): 'began' | 'ended' | undefined {
    const was = this.on;
    this.on = !confirmed;
    if (was === this.on) return undefined;
    return this.on ? 'began' : 'ended';
  }
}

export class ReplicaWait {
  private readonly redis: RedisClient;
  private readonly log: Logger;
  private readonly wanted: number;
  private readonly timeoutMs: number;
  private readonly onUnreplicated: () => void;
  private readonly spell = new Spell();

  constructor(redis: RedisClient, log: Logger, opts: ReplicaWaitOptions) {
    this.redis = redis;
    this.log = log;
    this.wanted = opts.waitReplicas ?? 0;
    this.timeoutMs = opts.waitTimeoutMs ?? 50;
    this.onUnreplicated = opts.onUnreplicated ?? (() => {});
  }

  /**
   * Whether the admission's writes are held by the replicas wanted. Not confirmed in time (no
   * replica connected, a slow one, the primary dying): the request is still answered (another
   * service being down never turns a score into a 5xx), counted by `onUnreplicated`, logged once
   * per spell; an idempotent one is then settled later (Reconciler.owe). Never throws.
   */
  async confirm(slotKey: string): Promise<boolean> {
    const { acked, error } = await this.waitFor(slotKey);
    const confirmed = acked >= this.wanted;
    const change = this.spell.note(confirmed);
    if (confirmed) {
      if (change === 'ended') this.log.info('redis writes replicated again before admissions are answered');
      return true;
    }
    this.onUnreplicated();
    if (change === 'began')
      this.log.warn(
        { err: error, replicas: acked, wanted: this.wanted },
        'redis replicas did not confirm an admission in time; answering it anyway',
      );
    return false;
  }

  /**
   * A settlement is done only once a replica holds it. Its marker, credit and entry share the
   * organisation's slot, so a failover loses all of them or none: sent again after one, it finds
   * no marker and settles anew; without one the marker makes the resend a read.
   */
  async mustConfirm(slotKey: string): Promise<void> {
    const { acked, error } = await this.waitFor(slotKey);
    if (acked < this.wanted) throw error ?? new Error('settlement not confirmed by a replica yet');
  }

  /**
   * `WAIT` on the connection that wrote: a pipeline routed by one of the organisation's keys
   * reaches that node's connection on a cluster (WAIT has no key of its own); the GET only routes it.
   */
  private async waitFor(slotKey: string): Promise<{ acked: number; error?: unknown }> {
    if (this.wanted <= 0) return { acked: 0 };
    try {
      return ackedOf(await this.redis.pipeline().get(slotKey).wait(this.wanted, this.timeoutMs).exec());
    } catch (error) {
      return { acked: 0, error };
    }
  }
}
