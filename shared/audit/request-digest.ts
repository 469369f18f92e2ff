import { sha256Hex } from '../sha256.ts';

/**
 * What ties the scores of one request together across its retries: the hex SHA-256 of the
 * organisation and the Idempotency-Key it was sent with. A caller's keys never reach the audit
 * record in clear; binding the organisation in keeps two organisations' equal keys apart and their
 * digests unrelated. A request without a key has none (each of its scores is its own request).
 */
export function requestDigest(orgId: string, idempotencyKey: string | undefined): string | undefined {
  if (idempotencyKey === undefined) return undefined;
  // A NUL cannot occur in an organisation id, so no two (org, key) pairs join to the same text.
  return sha256Hex(`${orgId}\u0000${idempotencyKey}`);
}
