import { ApiError } from '../../../shared/contract/errors.ts';
import { IDEMPOTENCY_KEY_MAX } from '../../../shared/contract/request.ts';

/**
 * The Idempotency-Key's side of an admission: how long an entry and its claim live, the key's own
 * check, the 409s and the score id a kept 200 is filed under. The entry's keeping is in
 * idempotency-entry.ts; claiming, replaying and freeing it in the scripts (admit.lua,
 * store-response.lua, release.lua).
 */

/** Idempotent 200s are kept this long (docs/contract.md "Idempotency"). */
export const IDEMPOTENCY_TTL_S = 24 * 3600;
/**
 * A request's claim on its idempotency entry: still in progress after this long, it is taken to
 * belong to a dead request, and a retry takes it over without being billed again (admit.lua).
 */
export const IN_PROGRESS_TTL_S = 30;

/** The contract layer validates the header first; this guard keeps the controls safe on their own. */
export function checkedIdempotencyKey(value: string): string {
  if (value.length === 0 || value.length > IDEMPOTENCY_KEY_MAX) {
    throw new ApiError(422, {
      code: 'E_VALIDATION',
      message: `Idempotency-Key must be 1 to ${IDEMPOTENCY_KEY_MAX} characters`,
      field: 'Idempotency-Key',
    });
  }
  return value;
}

/** 409: the key was used with another body, or its first request is still being answered. */
export function idempotencyConflict(
  outcome: 'mismatch' | 'in_progress',
  headers: Record<string, string>,
): ApiError {
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

/** The score_id of a 200 body: its first `score_id` member is the top-level one (written first). */
export function scoreIdOf(body: string): string {
  return /"score_id":"(sc_[0-9a-f]{32})"/.exec(body)?.[1] ?? '';
}
