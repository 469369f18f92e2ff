import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { RedisClient } from '../../../shared/clients/redis.ts';
import { ApiError } from '../../../shared/contract/errors.ts';
import { IDEMPOTENCY_KEY_MAX } from '../../../shared/contract/request.ts';
import type { Logger } from '../../../shared/logger.ts';
import { Backoff } from '../../../shared/retry.ts';
import {
  creditPeriod,
  creditsKey,
  creditsTtlSeconds,
  idempotencyKey,
  rateKey,
  type ControlScope,
} from '../../../shared/orgs/keyspace.ts';
import type { Principal } from '../auth.ts';
import { admitArgv, type AdmitArgs, type AdmitReply } from './admit-args.ts';
import { AdmitBatch } from './admit-batch.ts';
import { bodyFingerprint, sha256 } from './fingerprint.ts';
import {
  DEFAULT_IDEMPOTENCY_ENTRIES_PER_DAY,
  idempotencyCountKey,
  packBody,
  unpackBody,
} from './idempotency-entry.ts';
import type { CreditJournal, CreditEvent, Unsettled as JournalUnsettled } from './credit-journal.ts';
import { LocalControls } from './local.ts';

/** Idempotent 200s are kept this long (docs/contract.md "Idempotency"). */
export const IDEMPOTENCY_TTL_S = 24 * 3600;
/**
 * A request's claim on its idempotency entry: still in progress after this long, it is taken to
 * belong to a dead request, and a retry takes it over without being billed again (admit.lua).
 */
const IN_PROGRESS_TTL_S = 30;
/** After a Redis error, requests use the local controls this long before Redis is tried again. */
const RETRY_REDIS_AFTER_MS = 1_000;
/** A failed reconciliation is retried after 1 s, doubling up to 30 s, until it lands. */
const RECONCILE_RETRY_FIRST_MS = 1_000;
const RECONCILE_RETRY_MAX_MS = 30_000;
/** A reconciled batch's marker outlives every retry of it (reconcile.lua). */
const RECONCILE_MARKER_TTL_S = 24 * 3600;

const lua = (name: string) => readFileSync(new URL(`./${name}.lua`, import.meta.url), 'utf8');

type Args = (string | number)[];
type ScriptedRedis = RedisClient & {
  /** The last argument is how many requests the run admits: a flat list of three values each. */
  frsAdmit(rate: string, credits: string, ...args: Args): Promise<unknown[]>;
  frsAdmitIdempotent(
    rate: string,
    credits: string,
    idem: string,
    idemCount: string,
    ...args: Args
  ): Promise<AdmitReply>;
  frsStoreResponse(key: string, ...args: Args): Promise<number>;
  frsRelease(credits: string, ...args: Args): Promise<number>;
  frsReconcile(credits: string, marker: string, ...args: Args): Promise<number>;
  frsSettle(credits: string, idem: string, marker: string, ...args: Args): Promise<number>;
  frsReleaseIdempotent(credits: string, idem: string, ...args: Args): Promise<number>;
};
/** An idempotent request admitted locally: billed by settle.lua unless its key was billed already. */
interface Unsettled {
  key: string;
  idemKey: string;
  fp: string;
}

/** One admission as its steps read it (Controls.requestOf). */
interface AdmissionRequest {
  org: Principal['org'];
  scope: ControlScope;
  now: number;
  /** Scoring is billed; outcomes are not. */
  billed: boolean;
  /** The organisation's credits key for this period. */
  credits: string;
  /** The idempotency entry's key, when the request sent Idempotency-Key. */
  idemKey: string | undefined;
  /** Names the request in its claim, the credit journal and settle.lua. */
  token: string;
  /** The body's fingerprint; empty without Idempotency-Key. */
  fp: string;
}

/** What the route does next, with the headers every outcome carries. */
export type Admission =
  | { kind: 'replay'; headers: Record<string, string>; body: string }
  | {
      kind: 'admitted';
      headers: Record<string, string>;
      /** Call with the 200 body before sending it: keeps it for replays of the Idempotency-Key. */
      commit: (body: string) => Promise<void>;
      /** Call when the request fails after admission (a 5xx): refunds the credit, frees the key. */
      release: () => Promise<void>;
    };

export interface AdmissionControl {
  /**
   * `scope` 'score' (the default) is rate-limited and billed; 'outcomes' is rate-limited in a
   * window of its own, never billed, with Idempotency-Keys of its own.
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

export interface ControlsDeps {
  /** A fail-fast client (no offline queue, short command timeout): see shared/clients/redis.ts. */
  redis: RedisClient;
  log: Logger;
  /** API nodes expected in the deployment; divides the rate and credits while Redis is down. */
  nodeCount: number;
  /** Most idempotency entries an organisation may create per UTC day (idempotency-entry.ts). */
  idempotencyEntriesPerDay?: number;
  now?: () => number;
  /**
   * Replicas that must acknowledge an admission's writes (`WAIT`) before it is answered
   * (REDIS_WAIT_REPLICAS): 0 on one server, 1 on a Redis Cluster or Sentinel group.
   */
  waitReplicas?: number;
  /** How long `WAIT` may block (REDIS_WAIT_TIMEOUT_MS); below the client's command timeout. */
  waitTimeoutMs?: number;
  /** Called for each admission `WAIT` did not confirm in time (the request is answered anyway). */
  onUnreplicated?: () => void;
  /**
   * Where this node's local admissions are made durable before their 200 leaves (credit-journal.ts),
   * opened by the caller, which hands what an earlier run left to `recover`. Absent: memory only.
   */
  journal?: CreditJournal;
}

/**
 * Rate limit, credits and idempotency of a scoring request, shared by every API node through
 * one Lua script per request (admit.lua says why a script). When Redis is unreachable or slower
 * than the client's command timeout, the node answers from `LocalControls` and reconciles the
 * credits it billed once Redis is back; see docs/redis-outage.md.
 */
export class Controls implements AdmissionControl {
  private readonly redis: ScriptedRedis;
  private readonly log: Logger;
  private readonly local: LocalControls;
  private readonly now: () => number;
  private readonly idempotencyEntriesPerDay: number;
  /** Admissions without Idempotency-Key: one script run per organisation window and turn. */
  private readonly batch: AdmitBatch;
  private redisDownUntil = 0;
  private degraded = false;
  private reconciling: Promise<void> | undefined;
  /** Drained credits sent to Redis and not confirmed, by batch id: sent again with the same id. */
  private readonly batches = new Map<string, { key: string; n: number }>();
  /**
   * Idempotent requests admitted locally after their script got no reply, by token: whether
   * Redis billed them is settled once it answers again (settle.lua).
   */
  private readonly uncertain = new Map<string, Unsettled>();
  /** A failed reconciliation is tried again on this timer, not only when traffic next reaches Redis. */
  private reconcileRetry: NodeJS.Timeout | undefined;
  private readonly reconcileBackoff = new Backoff(RECONCILE_RETRY_FIRST_MS, RECONCILE_RETRY_MAX_MS);
  private readonly waitReplicas: number;
  private readonly waitTimeoutMs: number;
  private readonly onUnreplicated: () => void;
  private unreplicated = false;
  private readonly journal: CreditJournal | undefined;

  constructor(deps: ControlsDeps) {
    // One script, two key counts: a command with a fixed numberOfKeys is one whose keys ioredis
    // knows, so its auto-pipeline sends it to the node of its slot (with the count as the first
    // argument it would route by the count's digits). Every key is the organisation's ({org_...}).
    const admit = lua('admit');
    const release = lua('release');
    deps.redis.defineCommand('frsAdmit', { lua: admit, numberOfKeys: 2 });
    deps.redis.defineCommand('frsAdmitIdempotent', { lua: admit, numberOfKeys: 4 });
    deps.redis.defineCommand('frsStoreResponse', { lua: lua('store-response'), numberOfKeys: 1 });
    deps.redis.defineCommand('frsRelease', { lua: release, numberOfKeys: 1 });
    deps.redis.defineCommand('frsReleaseIdempotent', { lua: release, numberOfKeys: 2 });
    deps.redis.defineCommand('frsReconcile', { lua: lua('reconcile'), numberOfKeys: 2 });
    deps.redis.defineCommand('frsSettle', { lua: lua('settle'), numberOfKeys: 3 });
    this.redis = deps.redis as ScriptedRedis;
    this.batch = new AdmitBatch((rate, credits, args, count) =>
      this.redis.frsAdmit(rate, credits, ...args, count),
    );
    this.log = deps.log;
    this.local = new LocalControls(deps.nodeCount);
    this.now = deps.now ?? Date.now;
    this.idempotencyEntriesPerDay = deps.idempotencyEntriesPerDay ?? DEFAULT_IDEMPOTENCY_ENTRIES_PER_DAY;
    this.waitReplicas = deps.waitReplicas ?? 0;
    this.waitTimeoutMs = deps.waitTimeoutMs ?? 50;
    this.onUnreplicated = deps.onUnreplicated ?? (() => {});
    this.journal = deps.journal;
    this.redis.on('ready', () => void this.reconcile());
  }

  async admit(
    principal: Principal,
    idempotencyHeader: string | undefined,
    body: unknown,
    scope: ControlScope = 'score',
  ): Promise<Admission> {
    const req = this.requestOf(principal, idempotencyHeader, body, scope);
    let result: AdmitReply | undefined;
    // A script that timed out may still run once Redis catches up and bill there; such a request
    // is then not billed again locally (an outage may under-bill by a few credits, never double).
    let maybeBilledInRedis = false;
    if (this.redisUsable(req.now)) {
      try {
        result = await this.runScript(req);
      } catch (err) {
        maybeBilledInRedis = err instanceof Error && err.message === 'Command timed out';
        this.redisFailed(req.now, err);
      }
    }
    if (!result) {
      // An idempotent one is never billed on the node: its entry tells later whether its own
      // script ran, or whether another node billed the same key before dying with the answer
      // (the caller sent it again here). settle.lua bills it then, once, not guessed now.
      const uncertain = req.billed && req.idemKey !== undefined;
      if (uncertain) this.uncertain.set(req.token, { key: req.credits, idemKey: req.idemKey!, fp: req.fp });
      return await this.admitLocally(req, !maybeBilledInRedis && !uncertain, uncertain);
    }
    this.redisOk();
    return this.answer(req, result);
  }

  /** What every step of one admission reads, worked out once. */
  private requestOf(
    principal: Principal,
    idempotencyHeader: string | undefined,
    body: unknown,
    scope: ControlScope,
  ): AdmissionRequest {
    const org = principal.org;
    const now = this.now();
    const idem = idempotencyHeader === undefined ? undefined : checkedIdempotencyKey(idempotencyHeader);
    const idemKey = idem === undefined ? undefined : idempotencyKey(org.org_id, sha256(idem), scope);
    return {
      org,
      scope,
      now,
      billed: scope === 'score',
      credits: creditsKey(org.org_id, creditPeriod(now)),
      idemKey,
      token: randomUUID(),
      fp: idemKey === undefined ? '' : bodyFingerprint(body),
    };
  }

  /** admit.lua's arguments for `req`; a request without Idempotency-Key claims no entry. */
  private scriptArgs(req: AdmissionRequest): AdmitArgs {
    const claims = req.idemKey !== undefined;
    return {
      rateRps: req.org.rate_rps,
      credits: req.org.credits,
      overdraft: req.org.overdraft,
      creditsTtlS: creditsTtlSeconds(req.now),
      fingerprint: req.fp,
      inProgressTtlS: IN_PROGRESS_TTL_S,
      token: claims ? req.token : '',
      idempotencyEntriesPerDay: this.idempotencyEntriesPerDay,
      billed: req.billed,
      // No entry to claim: no fingerprint, token or clock, so the turn's requests of one window
      // share their arguments (the window's start stands in for the clock) and run together.
      nowMs: claims ? req.now : Math.floor(req.now / 1000) * 1000,
      idempotencyTtlS: IDEMPOTENCY_TTL_S,
    };
  }

  /** One script of its own for an idempotent request; otherwise a place in the turn's run. */
  private runScript(req: AdmissionRequest): Promise<AdmitReply> {
    const rate = rateKey(req.org.org_id, Math.floor(req.now / 1000), req.scope);
    const argv = admitArgv(this.scriptArgs(req));
    if (req.idemKey === undefined) return this.batch.admit(rate, req.credits, argv);
    const idemCount = idempotencyCountKey(req.org.org_id, req.now);
    return this.redis.frsAdmitIdempotent(rate, req.credits, req.idemKey, idemCount, ...argv);
  }

  /** The script's outcome as the route's next step, or the refusal it throws. */
  private async answer(req: AdmissionRequest, [outcome, n, used, stored]: AdmitReply): Promise<Admission> {
    const { org, billed, credits, idemKey, token, fp } = req;
    this.local.observe(credits, used);
    // An idempotent admission the replica may not hold is settled later like a local one: if the
    // primary dies before replicating it, settle.lua finds no entry and bills it then; if the
    // write survived, the entry says it is billed. A failover then neither loses nor doubles it.
    let settleLater = false;
    if (outcome === 'admitted' || outcome === 'admitted_unretained') {
      const replicated = await this.confirmReplicated(credits);
      if (!replicated && outcome === 'admitted' && billed && idemKey) {
        settleLater = true;
        await this.owe(token, { key: credits, idemKey, fp });
      }
    }
    const headers: Record<string, string> = {
      'X-RateLimit-Limit': String(org.rate_rps),
      'X-RateLimit-Remaining': String(Math.max(0, org.rate_rps - n)),
      ...(billed ? { 'X-Credits-Remaining': String(org.credits - used) } : {}),
    };
    switch (outcome) {
      case 'admitted':
        return {
          kind: 'admitted',
          headers,
          commit: (responseBody) => this.commit(idemKey, token, responseBody),
          release: async () => {
            // Refunded in Redis with its entry: nothing left to settle.
            if (settleLater && this.uncertain.delete(token)) await this.record({ t: 'r', id: token });
            await this.release(billed ? credits : null, idemKey, token);
          },
        };
      case 'admitted_unretained':
        return {
          kind: 'admitted',
          headers: { ...headers, 'Idempotency-Status': 'not-retained' },
          commit: async () => {},
          release: () => this.release(billed ? credits : null, undefined, token),
        };
      case 'replay':
        return {
          kind: 'replay',
          headers: { ...headers, 'Idempotent-Replayed': 'true' },
          body: unpackBody(stored!),
        };
      case 'rate_limited':
        throw rateLimited(org.rate_rps, headers, req.now);
      case 'credits_exhausted':
        throw creditsExhausted(headers);
      case 'mismatch':
      case 'in_progress':
        throw idempotencyConflict(outcome, headers);
      default:
        throw new Error(`admit.lua returned unknown outcome ${outcome}`);
    }
  }

  /**
   * Credits this node billed locally, or may owe (an idempotent request whose script got no reply),
   * that Redis does not hold yet: what a crash of the node now would lose.
   */
  get unsettledCredits(): number {
    let n = this.local.unreconciledCredits + this.uncertain.size;
    for (const b of this.batches.values()) n += b.n;
    return n;
  }

  /**
   * Pushes credits billed while Redis was unreachable into Redis; keeps them if that fails. Each
   * drained part is a batch with an id of its own, added by reconcile.lua at most once: a batch
   * whose reply was lost may still have been counted (a timed-out script runs on), so it is sent
   * again with the same id, never re-added as new credits.
   */
  reconcile(): Promise<void> {
    if (this.reconciling || (!this.local.pending && this.batches.size === 0 && this.uncertain.size === 0))
      return this.reconciling ?? Promise.resolve();
    const drained: CreditEvent[] = [];
    for (const [key, n] of this.local.drain()) {
      const id = randomUUID();
      this.batches.set(id, { key, n });
      drained.push({ t: 'b', id, k: key, n });
    }
    const now = this.now();
    // One script per batch: each key is one organisation's (its own hash slot on a cluster).
    let failed = 0;
    let firstErr: unknown;
    const one = async (id: string, { key, n }: { key: string; n: number }) => {
      try {
        const used = await this.redis.frsReconcile(
          key,
          `${key}:reconciled:${id}`,
          n,
          creditsTtlSeconds(now),
          RECONCILE_MARKER_TTL_S,
        );
        await this.mustBeReplicated(key);
        this.batches.delete(id);
        void this.record({ t: 'd', id });
        this.local.settled(key, n);
        this.local.observe(key, Number(used));
      } catch (err) {
        failed++;
        firstErr ??= err;
      }
    };
    const settle = async (token: string, { key, idemKey, fp }: Unsettled) => {
      try {
        const used = await this.redis.frsSettle(
          key,
          idemKey,
          `${key}:settled:${token}`,
          token,
          creditsTtlSeconds(now),
          RECONCILE_MARKER_TTL_S,
          fp,
          IDEMPOTENCY_TTL_S,
        );
        await this.mustBeReplicated(key);
        this.uncertain.delete(token);
        void this.record({ t: 'd', id: token });
        this.local.observe(key, Number(used));
      } catch (err) {
        failed++;
        firstErr ??= err;
      }
    };
    const sent = this.batches.size + this.uncertain.size;
    // A batch is on disk before it is sent: after a crash it is sent again under its id, never
    // rebuilt from the admissions it covers (which would count them twice).
    this.reconciling = Promise.all(drained.map((e) => this.record(e)))
      .then(() =>
        Promise.all([
          ...[...this.batches].map(([id, b]) => one(id, b)),
          ...[...this.uncertain].map(([token, u]) => settle(token, u)),
        ]),
      )
      .then(async () => {
        if (failed === 0) {
          this.log.info({ batches: sent }, 'credits billed during the Redis outage reconciled');
          this.reconcileBackoff.reset();
          await this.journal?.compact(() => this.unsettledCredits === 0 && !this.local.pending);
          return;
        }
        this.log.warn({ err: firstErr, batches: failed }, 'credit reconciliation failed; will retry');
        this.scheduleReconcileRetry();
      })
      .finally(() => {
        this.reconciling = undefined;
      });
    return this.reconciling;
  }

  /**
   * Takes over what an earlier run of this node left unsettled (CreditJournal.open): its batches
   * are sent again under their ids, its loose credits become new batches, its idempotent
   * admissions are settled; then reconciles.
   */
  async recover(left: JournalUnsettled): Promise<void> {
    for (const [id, b] of left.batches) this.batches.set(id, b);
    for (const [key, { n, id }] of left.loose) {
      this.batches.set(id, { key, n });
      await this.record({ t: 'b', id, k: key, n });
    }
    for (const [token, u] of left.idempotent) this.uncertain.set(token, u);
    const n = left.batches.size + left.loose.size + left.idempotent.size;
    if (n > 0) this.log.warn({ parts: n }, 'settling credits an earlier run of this node billed locally');
    if (this.redis.status === 'ready') await this.reconcile();
    else this.scheduleReconcileRetry();
  }

  /** An idempotent request whose billing settle.lua decides later: on disk before its 200 leaves. */
  private async owe(token: string, u: Unsettled): Promise<void> {
    this.uncertain.set(token, u);
    await this.record({ t: 'u', id: token, k: u.key, i: u.idemKey, f: u.fp });
    this.scheduleReconcileRetry();
  }

  /** Appends to the journal; a failing disk is logged, never turned into a refused request. */
  private async record(event: CreditEvent): Promise<void> {
    if (!this.journal) return;
    try {
      await this.journal.append(event);
    } catch (err) {
      this.log.error({ err }, 'credit journal write failed: a crash now loses this credit');
    }
  }

  /**
   * Without this, a reconciliation that failed as Redis came back (still loading, a reconnect
   * cutting the transaction) waited for the next request to reach Redis: with no traffic after
   * the outage, the credits stayed on the node.
   */
  private scheduleReconcileRetry(): void {
    if (this.reconcileRetry) return;
    this.reconcileRetry = setTimeout(() => {
      this.reconcileRetry = undefined;
      void this.reconcile();
    }, this.reconcileBackoff.next());
    // Never what keeps a stopping process alive.
    this.reconcileRetry.unref();
  }

  /**
   * Admits `req` from this node's share of the limits. `bill`: take the credit here (not when the
   * script may have billed it in Redis already); `uncertain`: whether Redis billed it is settled
   * later under the request's token (settle.lua).
   */
  private async admitLocally(req: AdmissionRequest, bill: boolean, uncertain: boolean): Promise<Admission> {
    const { org, now, scope, token } = req;
    // null: the request is not billed (outcomes).
    const credits = req.billed ? req.credits : null;
    const idempotent = req.idemKey !== undefined;
    const uncertainToken = uncertain ? token : undefined;
    const d = this.local.admit(org, credits, now, bill, scope);
    const headers: Record<string, string> = {
      'X-RateLimit-Limit': String(d.limit),
      'X-RateLimit-Remaining': String(d.remaining),
      ...(credits !== null ? { 'X-Credits-Remaining': String(d.creditsRemaining) } : {}),
    };
    // Without Redis no node can know whether the key was used elsewhere: say so, and score.
    if (idempotent) headers['Idempotency-Status'] = 'unavailable';
    if (d.outcome !== 'admitted' && uncertainToken) this.uncertain.delete(uncertainToken);
    if (d.outcome === 'rate_limited') throw rateLimited(d.limit, headers, now);
    if (d.outcome === 'credits_exhausted') throw creditsExhausted(headers);
    // Written to Redis by the next request that reaches it, or by this timer when none does
    // (the traffic stopped during a slow spell, which no 'ready' event ends).
    if (this.local.pending || this.uncertain.size > 0) this.scheduleReconcileRetry();
    // On disk before the 200 leaves: a node killed now settles it when it starts again.
    const billedHere = bill && credits !== null;
    if (billedHere) await this.record({ t: 'a', id: token, k: credits });
    const u = uncertainToken ? this.uncertain.get(uncertainToken) : undefined;
    if (u) await this.record({ t: 'u', id: uncertainToken!, k: u.key, i: u.idemKey, f: u.fp });
    return {
      kind: 'admitted',
      headers,
      commit: async () => {},
      release: async () => {
        if (billedHere) {
          this.local.refund(credits);
          await this.record({ t: 'r', id: token, k: credits });
        }
        // Failed after all: not billed here (Redis may have billed it: over by one on a 5xx).
        if (uncertainToken && this.uncertain.delete(uncertainToken))
          await this.record({ t: 'r', id: uncertainToken });
      },
    };
  }

  private async commit(idemKey: string | undefined, token: string, body: string): Promise<void> {
    if (!idemKey) return;
    try {
      await this.redis.frsStoreResponse(idemKey, token, packBody(body), IDEMPOTENCY_TTL_S, scoreIdOf(body));
    } catch (err) {
      // The 200 still goes out; a retry inside IN_PROGRESS_TTL_S gets 409, later it takes the claim
      // over and is scored again, not billed again.
      this.log.warn({ err }, 'idempotent response not stored');
    }
  }

  /** `credits` null: nothing was billed, only the idempotency entry is freed. */
  private async release(credits: string | null, idemKey: string | undefined, token: string): Promise<void> {
    if (credits === null && !idemKey) return;
    // release.lua always takes the credits key first; with ARGV[2] '0' it does not touch it.
    const creditsArg = credits ?? idemKey!;
    const billed = credits === null ? '0' : '1';
    try {
      if (idemKey) await this.redis.frsReleaseIdempotent(creditsArg, idemKey, token, billed);
      else await this.redis.frsRelease(creditsArg, token, billed);
    } catch (err) {
      if (credits !== null) {
        this.local.refund(credits);
        await this.record({ t: 'r', id: token, k: credits });
      }
      this.log.warn({ err }, 'refund not written to Redis; kept for reconciliation');
    }
  }

  /**
   * Redis replicates asynchronously: a write the primary acknowledged and had not yet sent to its
   * replica is lost if the primary dies and the replica takes over (a credit billed, then gone).
   * With `waitReplicas` > 0 an admission is answered once that many replicas hold its writes:
   * `WAIT` on the connection that ran the script. Not confirmed in time (no replica connected, a
   * slow one, the primary dying): the request is still answered (another service being down never
   * turns a score into a 5xx), counted by `onUnreplicated`, logged once per episode; an idempotent
   * one is then settled later (`owe`). Never throws.
   */
  private async confirmReplicated(slotKey: string): Promise<boolean> {
    const { acked, error } = await this.waitForReplicas(slotKey);
    if (acked >= this.waitReplicas) {
      if (this.unreplicated) this.log.info('redis writes replicated again before admissions are answered');
      this.unreplicated = false;
      return true;
    }
    this.onUnreplicated();
    if (!this.unreplicated)
      this.log.warn(
        { err: error, replicas: acked, wanted: this.waitReplicas },
        'redis replicas did not confirm an admission in time; answering it anyway',
      );
    this.unreplicated = true;
    return false;
  }

  /**
   * A settlement is done only once a replica holds it. Its marker, credit and entry share the
   * organisation's slot, so a failover loses all of them or none: sent again after one, it finds
   * no marker and settles anew; without one the marker makes the resend a read.
   */
  private async mustBeReplicated(slotKey: string): Promise<void> {
    const { acked, error } = await this.waitForReplicas(slotKey);
    if (acked < this.waitReplicas) throw error ?? new Error('settlement not confirmed by a replica yet');
  }

  /**
   * `WAIT` on the connection that wrote: a pipeline routed by one of the organisation's keys
   * reaches that node's connection on a cluster (WAIT has no key of its own); the GET only routes it.
   */
  private async waitForReplicas(slotKey: string): Promise<{ acked: number; error?: unknown }> {
    if (this.waitReplicas <= 0) return { acked: 0 };
    try {
      const replies = await this.redis
        .pipeline()
        .get(slotKey)
        .wait(this.waitReplicas, this.waitTimeoutMs)
        .exec();
      const [err, n] = replies?.[1] ?? [new Error('WAIT not answered'), 0];
      if (err) return { acked: 0, error: err };
      return { acked: Number(n) };
    } catch (error) {
      return { acked: 0, error };
    }
  }

  /** While degraded, one request per RETRY_REDIS_AFTER_MS probes Redis; the others stay local. */
  private redisUsable(now: number): boolean {
    if (this.redis.status !== 'ready' || now < this.redisDownUntil) return false;
    if (this.degraded) this.redisDownUntil = now + RETRY_REDIS_AFTER_MS;
    return true;
  }

  private redisFailed(now: number, err: unknown): void {
    this.redisDownUntil = now + RETRY_REDIS_AFTER_MS;
    if (!this.degraded) this.log.warn({ err }, 'redis unreachable: controls run locally');
    this.degraded = true;
  }

  private redisOk(): void {
    if (this.degraded) this.log.warn('redis reachable again: controls shared');
    this.degraded = false;
    if (this.local.pending || this.batches.size > 0 || this.uncertain.size > 0) void this.reconcile();
  }
}

/** The score_id of a 200 body: its first `score_id` member is the top-level one (written first). */
function scoreIdOf(body: string): string {
  return /"score_id":"(sc_[0-9a-f]{32})"/.exec(body)?.[1] ?? '';
}

/** The contract layer validates the header first; this guard keeps the controls safe on their own. */
function checkedIdempotencyKey(value: string): string {
  if (value.length === 0 || value.length > IDEMPOTENCY_KEY_MAX) {
    throw new ApiError(422, {
      code: 'E_VALIDATION',
      message: `Idempotency-Key must be 1 to ${IDEMPOTENCY_KEY_MAX} characters`,
      field: 'Idempotency-Key',
    });
  }
  return value;
}

function rateLimited(limit: number, headers: Record<string, string>, now: number): ApiError {
  const retryAfter = Math.max(1, Math.ceil((1000 - (now % 1000)) / 1000));
  return new ApiError(
    429,
    { code: 'E_RATE_LIMITED', message: `rate limit of ${limit} requests per second exceeded` },
    { ...headers, 'Retry-After': String(retryAfter) },
  );
}

function creditsExhausted(headers: Record<string, string>): ApiError {
  return new ApiError(
    402,
    {
      code: 'E_CREDITS_EXHAUSTED',
      message: 'credit allowance for this month is exhausted beyond the overdraft grace',
    },
    headers,
  );
}

/** 409: the key was used with another body, or its first request is still being answered. */
function idempotencyConflict(outcome: 'mismatch' | 'in_progress', headers: Record<string, string>): ApiError {
  if (outcome === 'mismatch')
    return new ApiError(
      409,
      {
        code: 'E_IDEMPOTENCY_MISMATCH',
        message: 'this Idempotency-Key was used with a different request body',
        field: 'Idempotency-Key',
      },
      headers,
    );
  return new ApiError(
    409,
    {
      code: 'E_IDEMPOTENCY_IN_PROGRESS',
      message: 'a request with this Idempotency-Key is still being processed; retry shortly',
      field: 'Idempotency-Key',
    },
    { ...headers, 'Retry-After': '1' },
  );
}
