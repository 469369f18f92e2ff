import { deflateRawSync, inflateRawSync } from 'node:zlib';

/**
 * How a replayable 200 is kept in the durable Redis. The entry is a hash of the body's
 * fingerprint, the state, the `score_id` and the body deflated (raw DEFLATE, base64): a 3 KB
 * response keeps in about a third of that, and inflating gives back the exact bytes sent, so a
 * replay is byte-identical. Entries written before compaction (plain JSON) still replay.
 */
const PREFIX = 'z1:';

export function packBody(body: string): string {
  return PREFIX + deflateRawSync(body, { level: 6 }).toString('base64');
}

export function unpackBody(stored: string): string {
  if (!stored.startsWith(PREFIX)) return stored;
  return inflateRawSync(Buffer.from(stored.slice(PREFIX.length), 'base64')).toString('utf8');
}

/**
 * Most new idempotency entries one organisation may create per UTC day. Past it a request with an
 * Idempotency-Key is still scored and billed, but not retained for replay, and says so with
 * `Idempotency-Status: not-retained`: one organisation cannot fill the durable Redis that holds
 * every tenant's keys and credits. At ~1.2 KB an entry the cap is ~120 MB per organisation a day.
 */
export const DEFAULT_IDEMPOTENCY_ENTRIES_PER_DAY = 100_000;

export const idempotencyCountKey = (orgId: string, nowMs: number) =>
  `frs:idemn:{${orgId}}:${new Date(nowMs).toISOString().slice(0, 10)}`;
