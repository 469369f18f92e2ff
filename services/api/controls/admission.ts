import {
  creditPeriod,
  creditsKey,
  creditsTtlSeconds,
  idempotencyKey,
  type ControlScope,
} from '../../../shared/orgs/keyspace.ts';
import type { Principal } from '../auth.ts';
import type { AdmitArgs } from './admit-args.ts';
import { bodyFingerprint, sha256 } from './fingerprint.ts';
import { checkedIdempotencyKey, IDEMPOTENCY_TTL_S, IN_PROGRESS_TTL_S } from './idempotency.ts';

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

/** One admission as its steps read it (`admissionRequest`). */
export interface AdmissionRequest {
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

/** What every step of one admission reads, worked out once. */
export function admissionRequest(
  principal: Principal,
  idempotencyHeader: string | undefined,
  body: unknown,
  scope: ControlScope,
  now: number,
  token: string,
): AdmissionRequest {
  const org = principal.org;
  const idem = idempotencyHeader === undefined ? undefined : checkedIdempotencyKey(idempotencyHeader);
  const idemKey = idem === undefined ? undefined : idempotencyKey(org.org_id, sha256(idem), scope);
  return {
    org,
    scope,
    now,
    billed: scope === 'score',
    credits: creditsKey(org.org_id, creditPeriod(now)),
    idemKey,
    token,
    fp: idemKey === undefined ? '' : bodyFingerprint(body),
  };
}

/** admit.lua's arguments for `req`; a request without Idempotency-Key claims no entry. */
export function scriptArgs(req: AdmissionRequest, idempotencyEntriesPerDay: number): AdmitArgs {
  const claims = req.idemKey !== undefined;
  return {
    rateRps: req.org.rate_rps,
    credits: req.org.credits,
    overdraft: req.org.overdraft,
    creditsTtlS: creditsTtlSeconds(req.now),
    fingerprint: req.fp,
    inProgressTtlS: IN_PROGRESS_TTL_S,
    token: claims ? req.token : '',
    idempotencyEntriesPerDay,
    billed: req.billed,
    // No entry to claim: no fingerprint, token or clock, so the turn's requests of one window
    // share their arguments (the window's start stands in for the clock) and run together.
    nowMs: claims ? req.now : Math.floor(req.now / 1000) * 1000,
    idempotencyTtlS: IDEMPOTENCY_TTL_S,
  };
}
