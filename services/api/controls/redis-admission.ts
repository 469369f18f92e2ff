import type { Logger } from '../../../shared/logger.ts';
import { rateKey } from '../../../shared/orgs/keyspace.ts';
import { admitArgv, type AdmitReply } from './admit-args.ts';
import { AdmitBatch } from './admit-batch.ts';
import { scriptArgs, type Admission, type AdmissionRequest } from './admission.ts';
import { creditsExhausted, creditsHeaders } from './credits.ts';
import { idempotencyCountKey, packBody, unpackBody } from './idempotency-entry.ts';
import { IDEMPOTENCY_TTL_S, idempotencyConflict, scoreIdOf } from './idempotency.ts';
import type { LocalControls } from './local.ts';
import type { Owed } from './owed.ts';
import { rateLimited, rateLimitHeaders, remainingInWindow, windowSecond } from './rate-limit.ts';
import type { Reconciler } from './reconciliation.ts';
import type { ReplicaWait } from './replicas.ts';
import type { ScriptedRedis } from './scripts.ts';

export interface RedisAdmissionDeps {
  redis: ScriptedRedis;
  log: Logger;
  local: LocalControls;
  owed: Owed;
  reconciler: Reconciler;
  replicas: ReplicaWait;
  /** Most idempotency entries an organisation may create per UTC day (idempotency-entry.ts). */
  idempotencyEntriesPerDay: number;
}

/** The headers of an answer from admit.lua: `n` requests in the window, `used` credits this month. */
export function replyHeaders(req: AdmissionRequest, n: number, used: number): Record<string, string> {
  const { org, billed } = req;
  return {
    ...rateLimitHeaders(org.rate_rps, remainingInWindow(org.rate_rps, n)),
    ...creditsHeaders(billed, org.credits - used),
  };
}

/**
 * Whether an admission is settled later like a local one: an idempotent, billed admission the
 * replica may not hold. If the primary dies before replicating it, settle.lua finds no entry and
 * bills it then; if the write survived, the entry says it is billed. A failover then neither
 * loses nor doubles it.
 */
export function settlesLater(outcome: string, replicated: boolean, req: AdmissionRequest): boolean {
  return !replicated && outcome === 'admitted' && req.billed && req.idemKey !== undefined;
}

/** The shared controls' side of an admission: one admit.lua run, its answer, keeping and giving back. */
export class RedisAdmission {
  private readonly d: RedisAdmissionDeps;
  /** Admissions without Idempotency-Key: one script run per organisation window and turn. */
  private readonly batch: AdmitBatch;

  constructor(deps: RedisAdmissionDeps) {
    this.d = deps;
    this.batch = new AdmitBatch((rate, credits, args, count) =>
      deps.redis.frsAdmit(rate, credits, ...args, count),
    );
  }

  /** One script of its own for an idempotent request; otherwise a place in the turn's run. */
  run(req: AdmissionRequest): Promise<AdmitReply> {
    const rate = rateKey(req.org.org_id, windowSecond(req.now), req.scope);
    const argv = admitArgv(scriptArgs(req, this.d.idempotencyEntriesPerDay));
    if (req.idemKey === undefined) return this.batch.admit(rate, req.credits, argv);
    const idemCount = idempotencyCountKey(req.org.org_id, req.now);
    return this.d.redis.frsAdmitIdempotent(rate, req.credits, req.idemKey, idemCount, ...argv);
  }

  /** The script's outcome as the route's next step, or the refusal it throws. */
  async answer(req: AdmissionRequest, [outcome, n, used, stored]: AdmitReply): Promise<Admission> {
    const { billed, credits, idemKey, token, fp } = req;
    this.d.local.observe(credits, used);
    let settleLater = false;
    if (outcome === 'admitted' || outcome === 'admitted_unretained') {
      const replicated = await this.d.replicas.confirm(credits);
      settleLater = settlesLater(outcome, replicated, req);
      if (settleLater) await this.d.reconciler.owe(token, { key: credits, idemKey: idemKey!, fp });
    }
    const headers = replyHeaders(req, n, used);
    const billedKey = billed ? credits : null;
    switch (outcome) {
      case 'admitted':
        return {
          kind: 'admitted',
          headers,
          commit: (responseBody) => this.commit(idemKey, token, responseBody),
          release: async () => {
            // Refunded in Redis with its entry: nothing left to settle.
            if (settleLater && this.d.owed.uncertain.delete(token))
              await this.d.reconciler.record({ t: 'r', id: token });
            await this.release(billedKey, idemKey, token);
          },
        };
      case 'admitted_unretained':
        return {
          kind: 'admitted',
          headers: { ...headers, 'Idempotency-Status': 'not-retained' },
          commit: async () => {},
          release: () => this.release(billedKey, undefined, token),
        };
      case 'replay':
        return {
          kind: 'replay',
          headers: { ...headers, 'Idempotent-Replayed': 'true' },
          body: unpackBody(stored!),
        };
      case 'rate_limited':
        throw rateLimited(req.org.rate_rps, headers, req.now);
      case 'credits_exhausted':
        throw creditsExhausted(headers);
      case 'mismatch':
      case 'in_progress':
        throw idempotencyConflict(outcome, headers);
      default:
        throw new Error(`admit.lua returned unknown outcome ${outcome}`);
    }
  }

  private async commit(idemKey: string | undefined, token: string, body: string): Promise<void> {
    if (!idemKey) return;
    try {
      await this.d.redis.frsStoreResponse(idemKey, token, packBody(body), IDEMPOTENCY_TTL_S, scoreIdOf(body));
    } catch (err) {
      // The 200 still goes out; a retry inside IN_PROGRESS_TTL_S gets 409, later it takes the claim
      // over and is scored again, not billed again.
      this.d.log.warn({ err }, 'idempotent response not stored');
    }
  }

  /** `credits` null: nothing was billed, only the idempotency entry is freed. */
  private async release(credits: string | null, idemKey: string | undefined, token: string): Promise<void> {
    if (credits === null && !idemKey) return;
    // release.lua always takes the credits key first; with ARGV[2] '0' it does not touch it.
    const creditsArg = credits ?? idemKey!;
    const billed = credits === null ? '0' : '1';
    try {
      if (idemKey) await this.d.redis.frsReleaseIdempotent(creditsArg, idemKey, token, billed);
      else await this.d.redis.frsRelease(creditsArg, token, billed);
    } catch (err) {
      if (credits !== null) {
        this.d.local.refund(credits);
        await this.d.reconciler.record({ t: 'r', id: token, k: credits });
      }
      this.d.log.warn({ err }, 'refund not written to Redis; kept for reconciliation');
    }
  }
}
