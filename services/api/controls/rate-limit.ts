import { ApiError } from '../../../shared/contract/errors.ts';

/**
 * The rate limit's side of an admission: a fixed one-second window per organisation (admit.lua in
 * Redis, local.ts while it is unreachable), its headers on every answer and its 429.
 */

/** The window a request falls in: its epoch second. */
export function windowSecond(nowMs: number): number {
  return Math.floor(nowMs / 1000);
}

/** Requests left in the window after `used` of `limit`; never below 0 (refused ones count too). */
export function remainingInWindow(limit: number, used: number): number {
  return Math.max(0, limit - used);
}

export function rateLimitHeaders(limit: number, remaining: number): Record<string, string> {
  return { 'X-RateLimit-Limit': String(limit), 'X-RateLimit-Remaining': String(remaining) };
}

/** Whole seconds until the next window opens: at least 1. */
export function retryAfterSeconds(nowMs: number): number {
  return Math.max(1, Math.ceil((1000 - (nowMs % 1000)) / 1000));
}

export function rateLimited(limit: number, headers: Record<string, string>, nowMs: number): ApiError {
  return new ApiError(
    429,
    { code: 'E_RATE_LIMITED', message: `rate limit of ${limit} requests per second exceeded` },
    { ...headers, 'Retry-After': String(retryAfterSeconds(nowMs)) },
  );
}
