import { randomUUID } from 'node:crypto';
import type { RedisClient } from '../../../shared/clients/redis.ts';
import type { Logger } from '../../../shared/logger.ts';
import type { ControlScope } from '../../../shared/orgs/keyspace.ts';
import type { Principal } from '../auth.ts';
import type { AdmitReply } from './admit-args.ts';
import { admissionRequest, type Admission } from './admission.ts';
import type { CreditJournal, Unsettled as JournalUnsettled } from './credit-journal.ts';
import { DEFAULT_IDEMPOTENCY_ENTRIES_PER_DAY } from './idempotency-entry.ts';
import { LocalAdmission } from './local-admission.ts';
import { LocalControls } from './local.ts';
import { Owed } from './owed.ts';
import { Reconciler } from './reconciliation.ts';
import { RedisAdmission } from './redis-admission.ts';
import { mayHaveRun, RedisHealth } from './redis-health.ts';
import { ReplicaWait, type ReplicaWaitOptions } from './replicas.ts';
import { scripted } from './scripts.ts';

export interface AdmissionControl {
  /**
   * `scope` 'score' (the default) is rate-limited and billed; 'outcomes' and 'lists' are each
   * rate-limited in a window of its own, never billed, with Idempotency-Keys of its own.
   */
  admit(
    principal: Principal,
    idempotencyHeader: string | undefined,
    body: unknown,
    scope?: ControlScope,
  ): Promise<Admission>;
}

/** CONTROLS=off, for the same-run benchmark baseline only: admits everything, sets no headers. */
export const NO_CONTROLS: AdmissionControl = {
  admit: async () => ({ kind: 'admitted', headers: {}, commit: async () => {}, release: async () => {} }),
};

export interface ControlsDeps extends ReplicaWaitOptions {
  /** A fail-fast client (no offline queue, short command timeout): see shared/clients/redis.ts. */
  redis: RedisClient;
  log: Logger;
  /** API nodes expected in the deployment; divides the rate and credits while Redis is down. */
  nodeCount: number;
  /** Most idempotency entries an organisation may create per UTC day (idempotency-entry.ts). */
  idempotencyEntriesPerDay?: number;
  now?: () => number;
  /**
   * Where this node's local admissions are made durable before their 200 leaves (credit-journal.ts),
   * opened by the caller, which hands what an earlier run left to `recover`. Absent: memory only.
   */
  journal?: CreditJournal;
}

/**
 * Rate limit, credits and idempotency of a scoring request, shared by every API node through
 * one Lua script per request (admit.lua says why a script). When Redis is unreachable or slower
 * than the client's command timeout, the node answers from its local controls and reconciles the
 * credits it billed once Redis is back; see docs/redis-outage.md. The parts:
 * - admission.ts: what one admission reads, and what the route does next;
 * - redis-admission.ts: the script's run and answer (rate-limit.ts, credits.ts, idempotency.ts);
 * - local-admission.ts over local.ts: the node's own share while Redis is away, chosen by
 *   redis-health.ts;
 * - reconciliation.ts over owed.ts: what the node billed alone, into Redis once it is back;
 * - replicas.ts: `WAIT` for the replicas before an admission is answered.
 */
export class Controls implements AdmissionControl {
  private readonly redis: RedisClient;
  private readonly log: Logger;
  private readonly now: () => number;
  private readonly health = new RedisHealth();
  private readonly reconciler: Reconciler;
  private readonly shared: RedisAdmission;
  private readonly alone: LocalAdmission;

  constructor(deps: ControlsDeps) {
    const redis = scripted(deps.redis);
    const local = new LocalControls(deps.nodeCount);
    const owed = new Owed();
    const replicas = new ReplicaWait(deps.redis, deps.log, deps);
    this.redis = deps.redis;
    this.log = deps.log;
    this.now = deps.now ?? Date.now;
    this.reconciler = new Reconciler({
      redis,
      log: deps.log,
      local,
      owed,
      replicas,
      journal: deps.journal,
      now: this.now,
    });
    this.shared = new RedisAdmission({
      redis,
      log: deps.log,
      local,
      owed,
      reconciler: this.reconciler,
      replicas,
      idempotencyEntriesPerDay: deps.idempotencyEntriesPerDay ?? DEFAULT_IDEMPOTENCY_ENTRIES_PER_DAY,
    });
    this.alone = new LocalAdmission(local, owed, this.reconciler);
    this.redis.on('ready', () => void this.reconcile());
  }

  async admit(
    principal: Principal,
    idempotencyHeader: string | undefined,
    body: unknown,
    scope: ControlScope = 'score',
  ): Promise<Admission> {
    const req = admissionRequest(principal, idempotencyHeader, body, scope, this.now(), randomUUID());
    let result: AdmitReply | undefined;
    let mayBeBilledInRedis = false;
    if (this.health.usable(req.now, this.redis.status === 'ready')) {
      try {
        result = await this.shared.run(req);
      } catch (err) {
        mayBeBilledInRedis = mayHaveRun(err);
        if (this.health.failed(req.now)) this.log.warn({ err }, 'redis unreachable: controls run locally');
      }
    }
    if (!result) return await this.alone.admit(req, mayBeBilledInRedis);
    if (this.health.ok()) this.log.warn('redis reachable again: controls shared');
    if (this.reconciler.owesRedis) void this.reconcile();
    return this.shared.answer(req, result);
  }

  /**
   * Credits this node billed locally, or may owe (an idempotent request whose script got no reply),
   * that Redis does not hold yet: what a crash of the node now would lose.
   */
  get unsettledCredits(): number {
    return this.reconciler.unsettledCredits;
  }

  /** Pushes what this node billed while Redis was unreachable into Redis (reconciliation.ts). */
  reconcile(): Promise<void> {
    return this.reconciler.reconcile();
  }

  /** Takes over what an earlier run of this node left unsettled (CreditJournal.open), then reconciles. */
  recover(left: JournalUnsettled): Promise<void> {
    return this.reconciler.recover(left);
  }
}
