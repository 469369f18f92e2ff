import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../shared/contract/errors.ts';
import { IDEMPOTENCY_KEY_MAX } from '../../../shared/contract/request.ts';
import { checkedIdempotencyKey, idempotencyConflict, scoreIdOf } from './idempotency.ts';

const codeOf = (f: () => unknown) => {
  try {
    f();
  } catch (err) {
    return err instanceof ApiError ? err.items[0]?.code : String(err);
  }
  return undefined;
};

describe('the Idempotency-Key of an admission', () => {
  it('takes a key of 1 to IDEMPOTENCY_KEY_MAX characters, refuses an empty or longer one', () => {
    expect(checkedIdempotencyKey('k')).toBe('k');
    expect(checkedIdempotencyKey('k'.repeat(IDEMPOTENCY_KEY_MAX))).toHaveLength(IDEMPOTENCY_KEY_MAX);
    expect(codeOf(() => checkedIdempotencyKey(''))).toBe('E_VALIDATION');
    expect(codeOf(() => checkedIdempotencyKey('k'.repeat(IDEMPOTENCY_KEY_MAX + 1)))).toBe('E_VALIDATION');
  });

  it('answers a key used with another body with 409, and one still in progress with 409 and Retry-After', () => {
    const headers = { 'X-RateLimit-Limit': '20' };
    const mismatch = idempotencyConflict('mismatch', headers);
    expect([mismatch.status, mismatch.items[0]?.code, mismatch.headers]).toEqual([
      409,
      'E_IDEMPOTENCY_MISMATCH',
      headers,
    ]);
    const busy = idempotencyConflict('in_progress', headers);
    expect([busy.status, busy.items[0]?.code, busy.headers]).toEqual([
      409,
      'E_IDEMPOTENCY_IN_PROGRESS',
      { ...headers, 'Retry-After': '1' },
    ]);
  });

  it("files a kept 200 under its top-level score_id, the body's first", () => {
    const id = `sc_${'a'.repeat(32)}`;
    const body = `{"score_id":"${id}","shadow":{"score_id":"sc_${'b'.repeat(32)}"}}`;
    expect(scoreIdOf(body)).toBe(id);
    expect(scoreIdOf('{"score":1}')).toBe('');
  });
});
