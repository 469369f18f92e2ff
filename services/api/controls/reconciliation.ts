import { randomUUID } from 'node:crypto';
import type { Logger } from '../../../shared/logger.ts';
import { creditsTtlSeconds } from '../../../shared/orgs/keyspace.ts';
import { Backoff } from '../../../shared/retry.ts';
import type { CreditEvent, CreditJournal, Unsettled as JournalUnsettled } from './credit-journal.ts';
import { IDEMPOTENCY_TTL_S } from './idempotency.ts';
import type { LocalControls } from './local.ts';
import type { Owed, Uncertain } from './owed.ts';
import type { ReplicaWait } from './replicas.ts';
import type { ScriptedRedis } from './scripts.ts';

/** A failed reconciliation is retried after 1 s, doubling up to 30 s, until it lands. */
const RECONCILE_RETRY_FIRST_MS = 1_000;
const RECONCILE_RETRY_MAX_MS = 30_000;
/** A reconciled batch's marker outlives every retry of it (reconcile.lua). */
const RECONCILE_MARKER_TTL_S = 24 * 3600;

export interface ReconcilerDeps {
  redis: ScriptedRedis;
  log: Logger;
  local: LocalControls;
  owed: Owed;
  replicas: ReplicaWait;
  /** Where the node's local admissions are made durable (credit-journal.ts); absent: memory only. */
  journal: CreditJournal | undefined;
  now: () => number;
}

/**
 * Pushes credits billed while Redis was unreachable into Redis; keeps them if that fails. Each
 * drained part is a batch with an id of its own, added by reconcile.lua at most once: a batch
 * whose reply was lost may still have been counted (a timed-out script runs on), so it is sent
 * again with the same id, never re-added as new credits. Uncertain idempotent requests are
 * settled by settle.lua.
 */
export class Reconciler {
  private readonly d: ReconcilerDeps;
  private reconciling: Promise<void> | undefined;
  /**
   * Asked for while a run was in flight: what was billed or owed since is not in that run. Without
   * this, a retry timer firing during a run that then succeeded was spent, and credits billed at
   * the end of the traffic stayed on the node (seen in the cluster fault test).
   */
  private askedAgain = false;
  /** A failed reconciliation is tried again on this timer, not only when traffic next reaches Redis. */
  private retry: NodeJS.Timeout | undefined;
  private readonly backoff = new Backoff(RECONCILE_RETRY_FIRST_MS, RECONCILE_RETRY_MAX_MS);

  constructor(deps: ReconcilerDeps) {
    this.d = deps;
  }

  /** Whether anything billed here is not in Redis yet. */
  get owesRedis(): boolean {
    return this.d.local.pending || !this.d.owed.empty;
  }

  /** What a crash of the node now would lose: credits billed here, or maybe owed, not in Redis. */
  get unsettledCredits(): number {
    return this.d.local.unreconciledCredits + this.d.owed.credits;
  }

  reconcile(): Promise<void> {
    if (this.reconciling) {
      this.askedAgain = true;
      return this.reconciling;
    }
    if (!this.owesRedis) return Promise.resolve();
    const { local, owed } = this.d;
    const drained = owed.batch(local.drain(), randomUUID);
    const now = this.d.now();
    const sent = owed.batches.size + owed.uncertain.size;
    // A batch is on disk before it is sent: after a crash it is sent again under its id, never
    // rebuilt from the admissions it covers (which would count them twice).
    this.reconciling = Promise.all(drained.map((e) => this.record(e)))
      .then(() =>
        Promise.allSettled([
          // One script per batch: each key is one organisation's (its own hash slot on a cluster).
          ...[...owed.batches].map(([id, b]) => this.sendBatch(id, b, now)),
          ...[...owed.uncertain].map(([token, u]) => this.settle(token, u, now)),
        ]),
      )
      .then((results) => this.finished(results, sent))
      .finally(() => {
        this.reconciling = undefined;
        if (this.askedAgain) {
          this.askedAgain = false;
          if (this.owesRedis) this.scheduleRetry();
        }
      });
    return this.reconciling;
  }

  /**
   * Takes over what an earlier run of this node left unsettled (CreditJournal.open): its batches
   * are sent again under their ids, its loose credits become new batches, its idempotent
   * admissions are settled; then reconciles.
   */
  async recover(left: JournalUnsettled): Promise<void> {
    const { owed } = this.d;
    for (const [id, b] of left.batches) owed.batches.set(id, b);
    for (const [key, { n, id }] of left.loose) {
      owed.batches.set(id, { key, n });
      await this.record({ t: 'b', id, k: key, n });
    }
    for (const [token, u] of left.idempotent) owed.uncertain.set(token, u);
    const n = left.batches.size + left.loose.size + left.idempotent.size;
    if (n > 0) this.d.log.warn({ parts: n }, 'settling credits an earlier run of this node billed locally');
    if (this.d.redis.status === 'ready') await this.reconcile();
    else this.scheduleRetry();
  }

  /** An idempotent request whose billing settle.lua decides later: on disk before its 200 leaves. */
  async owe(token: string, u: Uncertain): Promise<void> {
    this.d.owed.uncertain.set(token, u);
    await this.record({ t: 'u', id: token, k: u.key, i: u.idemKey, f: u.fp });
    this.scheduleRetry();
  }

  /** Appends to the journal; a failing disk is logged, never turned into a refused request. */
  async record(event: CreditEvent): Promise<void> {
    if (!this.d.journal) return;
    try {
      await this.d.journal.append(event);
    } catch (err) {
      this.d.log.error({ err }, 'credit journal write failed: a crash now loses this credit');
    }
  }

  /**
   * Without this, a reconciliation that failed as Redis came back (still loading, a reconnect
   * cutting the transaction) waited for the next request to reach Redis: with no traffic after
   * the outage, the credits stayed on the node.
   */
  scheduleRetry(): void {
    if (this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      void this.reconcile();
    }, this.backoff.next());
    // Never what keeps a stopping process alive.
    this.retry.unref();
  }

  private async sendBatch(id: string, { key, n }: { key: string; n: number }, now: number): Promise<void> {
    const { redis, replicas, owed, local } = this.d;
    const used = await redis.frsReconcile(
      key,
      `${key}:reconciled:${id}`,
      n,
      creditsTtlSeconds(now),
      RECONCILE_MARKER_TTL_S,
    );
    await replicas.mustConfirm(key);
    owed.batches.delete(id);
    void this.record({ t: 'd', id });
    local.settled(key, n);
    local.observe(key, Number(used));
  }

  private async settle(token: string, { key, idemKey, fp }: Uncertain, now: number): Promise<void> {
    const { redis, replicas, owed, local } = this.d;
    const used = await redis.frsSettle(
      key,
      idemKey,
      `${key}:settled:${token}`,
      token,
      creditsTtlSeconds(now),
      RECONCILE_MARKER_TTL_S,
      fp,
      IDEMPOTENCY_TTL_S,
    );
    await replicas.mustConfirm(key);
    owed.uncertain.delete(token);
    void this.record({ t: 'd', id: token });
    local.observe(key, Number(used));
  }

  private async finished(results: PromiseSettledResult<void>[], sent: number): Promise<void> {
    const failures = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
    if (failures.length === 0) {
      this.d.log.info({ batches: sent }, 'credits billed during the Redis outage reconciled');
      this.backoff.reset();
      await this.d.journal?.compact(() => this.unsettledCredits === 0 && !this.d.local.pending);
      return;
    }
    this.d.log.warn(
      { err: failures[0], batches: failures.length },
      'credit reconciliation failed; will retry',
    );
    this.scheduleRetry();
  }
}
