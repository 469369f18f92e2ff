import { ApiError } from '../../../shared/contract/errors.ts';

/**
 * The credits' side of an admission: what is left of the month's allowance on every billed
 * answer, and the 402 once the overdraft grace is spent too. Billing itself is admit.lua's (in
 * Redis) or local.ts's (while it is unreachable); settling what a node billed alone is
 * reconciliation.ts's.
 */

/** X-Credits-Remaining on a billed request; an unbilled one (outcomes) says nothing of credits. */
export function creditsHeaders(billed: boolean, remaining: number): Record<string, string> {
  return billed ? { 'X-Credits-Remaining': String(remaining) } : {};
}

export function creditsExhausted(headers: Record<string, string>): ApiError {
  return new ApiError(
    402,
    {
      code: 'E_CREDITS_EXHAUSTED',
      message: 'credit allowance for this month is exhausted beyond the overdraft grace',
    },
    headers,
  );
}
