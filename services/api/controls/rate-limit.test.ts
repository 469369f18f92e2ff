import { describe, expect, it } from 'vitest';
import {
  rateLimited,
  rateLimitHeaders,
  remainingInWindow,
  retryAfterSeconds,
  windowSecond,
} from './rate-limit.ts';

const T0 = 1_795_000_000_000;

describe('the rate limit of an admission', () => {
  it('counts in whole epoch seconds', () => {
    expect(windowSecond(T0)).toBe(T0 / 1000);
    expect(windowSecond(T0 + 999)).toBe(T0 / 1000);
    expect(windowSecond(T0 + 1000)).toBe(T0 / 1000 + 1);
  });

  it('says what is left of the window, never less than nothing', () => {
    expect(remainingInWindow(20, 5)).toBe(15);
    expect(remainingInWindow(20, 20)).toBe(0);
    expect(remainingInWindow(20, 23)).toBe(0);
  });

  it('tells a refused caller to come back when the next window opens, at least a second on', () => {
    expect(retryAfterSeconds(T0)).toBe(1);
    expect(retryAfterSeconds(T0 + 999)).toBe(1);
  });

  it('refuses with 429, the headers of the answer and Retry-After', () => {
    const err = rateLimited(20, rateLimitHeaders(20, 0), T0 + 500);
    expect(err.status).toBe(429);
    expect(err.items.map((i) => i.code)).toEqual(['E_RATE_LIMITED']);
    expect(err.headers).toEqual({
      'X-RateLimit-Limit': '20',
      'X-RateLimit-Remaining': '0',
      'Retry-After': '1',
    });
  });
});
