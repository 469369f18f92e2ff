/**
 * admit.lua's arguments by name, and the one function that lays them out in the order the script
 * reads them (its ARGV, documented at the top of admit.lua). Both the single idempotent admission
 * (redis-admission.ts) and a run of admissions (admit-batch.ts) send them, so they live apart from both.
 */

/** admit.lua's answer for one request: outcome, requests in the window, credits used[, stored body]. */
export type AdmitReply = [string, number, number, string?];

export interface AdmitArgs {
  /** ARGV[1]: requests per second the organisation may make. */
  rateRps: number;
  /** ARGV[2]: its monthly allowance of credits. */
  credits: number;
  /** ARGV[3]: the overdraft grace beyond the allowance. */
  overdraft: number;
  /** ARGV[4]: TTL of the credits key, seconds. */
  creditsTtlS: number;
  /** ARGV[5]: the body's fingerprint; empty without Idempotency-Key. */
  fingerprint: string;
  /** ARGV[6]: how long a claim on an idempotency entry holds, seconds. */
  inProgressTtlS: number;
  /** ARGV[7]: the request's token (only its owner stores or frees the entry); empty without a key. */
  token: string;
  /** ARGV[8]: most idempotency entries the organisation may create per UTC day. */
  idempotencyEntriesPerDay: number;
  /** ARGV[9]: whether the request is billed (scoring) or not (outcomes). */
  billed: boolean;
  /** ARGV[10]: the node's clock, ms. */
  nowMs: number;
  /** ARGV[11]: TTL of an idempotency entry, seconds. */
  idempotencyTtlS: number;
}

/** ARGV[1..11] in the script's order; a run's count (ARGV[12]) is appended by whoever sends it. */
export function admitArgv(a: AdmitArgs): (string | number)[] {
  return [
    a.rateRps,
    a.credits,
    a.overdraft,
    a.creditsTtlS,
    a.fingerprint,
    a.inProgressTtlS,
    a.token,
    a.idempotencyEntriesPerDay,
    a.billed ? '1' : '0',
    a.nowMs,
    a.idempotencyTtlS,
  ];
}
