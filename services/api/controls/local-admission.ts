import type { Admission, AdmissionRequest } from './admission.ts';
import { creditsExhausted, creditsHeaders } from './credits.ts';
import type { LocalControls, LocalDecision } from './local.ts';
import { rateLimited, rateLimitHeaders } from './rate-limit.ts';
import type { Reconciler } from './reconciliation.ts';
import type { Owed } from './owed.ts';

/**
 * How a request admitted without Redis is billed. `bill`: take the credit here, unless the
 * script may have billed it in Redis already (a timed-out script runs on). `uncertain`: an
 * idempotent one is never billed on the node: its entry tells later whether its own script ran,
 * or whether another node billed the same key before dying with the answer (the caller sent it
 * again here); settle.lua bills it then, once, not guessed now.
 */
export function localBilling(req: AdmissionRequest, mayBeBilledInRedis: boolean) {
  const uncertain = req.billed && req.idemKey !== undefined;
  return { bill: !mayBeBilledInRedis && !uncertain, uncertain };
}

/** The headers of a local answer; without Redis no node can know whether the key was used elsewhere. */
export function localHeaders(d: LocalDecision, billed: boolean, idempotent: boolean): Record<string, string> {
  return {
    ...rateLimitHeaders(d.limit, d.remaining),
    ...creditsHeaders(billed, d.creditsRemaining),
    ...(idempotent ? { 'Idempotency-Status': 'unavailable' } : {}),
  };
}

/** The local controls' side of an admission while Redis is slow or unreachable (docs/redis-outage.md). */
export class LocalAdmission {
  private readonly local: LocalControls;
  private readonly owed: Owed;
  private readonly reconciler: Reconciler;

  constructor(local: LocalControls, owed: Owed, reconciler: Reconciler) {
    this.local = local;
    this.owed = owed;
    this.reconciler = reconciler;
  }

  /** Admits `req` from this node's share of the limits (local.ts), or refuses it. */
  async admit(req: AdmissionRequest, mayBeBilledInRedis: boolean): Promise<Admission> {
    const { org, now, token } = req;
    const { bill, uncertain } = localBilling(req, mayBeBilledInRedis);
    if (uncertain) this.owed.uncertain.set(token, { key: req.credits, idemKey: req.idemKey!, fp: req.fp });
    // null: the request is not billed (outcomes).
    const credits = req.billed ? req.credits : null;
    const uncertainToken = uncertain ? token : undefined;
    const d = this.local.admit(org, credits, now, bill, req.scope);
    const headers = localHeaders(d, credits !== null, req.idemKey !== undefined);
    if (d.outcome !== 'admitted' && uncertainToken) this.owed.uncertain.delete(uncertainToken);
    if (d.outcome === 'rate_limited') throw rateLimited(d.limit, headers, now);
    if (d.outcome === 'credits_exhausted') throw creditsExhausted(headers);
    // Written to Redis by the next request that reaches it, or by this timer when none does
    // (the traffic stopped during a slow spell, which no 'ready' event ends).
    if (this.local.pending || this.owed.uncertain.size > 0) this.reconciler.scheduleRetry();
    // On disk before the 200 leaves: a node killed now settles it when it starts again.
    const billedHere = bill && credits !== null;
    if (billedHere) await this.reconciler.record({ t: 'a', id: token, k: credits });
    const u = uncertainToken ? this.owed.uncertain.get(uncertainToken) : undefined;
    if (u) await this.reconciler.record({ t: 'u', id: uncertainToken!, k: u.key, i: u.idemKey, f: u.fp });
    return {
      kind: 'admitted',
      headers,
      commit: async () => {},
      release: async () => {
        if (billedHere) {
          this.local.refund(credits);
          await this.reconciler.record({ t: 'r', id: token, k: credits });
        }
        // Failed after all: not billed here (Redis may have billed it: over by one on a 5xx).
        if (uncertainToken && this.owed.uncertain.delete(uncertainToken))
          await this.reconciler.record({ t: 'r', id: uncertainToken });
      },
    };
  }
}
