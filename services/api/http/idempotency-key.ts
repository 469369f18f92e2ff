import type { IncomingMessage } from 'node:http';
import type { IdempotencyKeyHeader } from '../../../shared/contract/validation.ts';

/**
 * The Idempotency-Key header of a request, as sent. Node joins a repeated header into one value
 * with ", ", which would turn two keys into a third nobody sent: a value that may be joined is
 * read apart from the raw headers, and two values are refused by validation (422).
 */
export function idempotencyKeyOf(req: IncomingMessage): IdempotencyKeyHeader {
  const value = req.headers['idempotency-key'];
  if (typeof value !== 'string' || !value.includes(',')) return value;
  const each = req.headersDistinct['idempotency-key'] ?? [value];
  return each.length === 1 ? each[0] : each;
}

/** The key of a request that passed validation, where a repeated header is already a 422. */
export const validatedKey = (header: IdempotencyKeyHeader): string | undefined =>
  typeof header === 'string' ? header : undefined;
