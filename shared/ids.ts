import { randomBytes } from 'node:crypto';

export const SCORE_ID_PATTERN = /^sc_[0-9a-f]{32}$/;

/**
 * `sc_` + the 32 hex digits of a UUIDv7 (RFC 9562): 48 bits of epoch milliseconds, then version,
 * random and variant bits. Ids sort by time and an explain lookup reads the month from the id.
 */
export function newScoreId(nowMs: number = Date.now()): string {
  const b = randomBytes(16);
  b.writeUIntBE(nowMs, 0, 6);
  b[6] = 0x70 | (b[6]! & 0x0f);
  b[8] = 0x80 | (b[8]! & 0x3f);
  return `sc_${b.toString('hex')}`;
}

/** Epoch milliseconds embedded in a score id, or null when the id is not one of ours. */
export function scoreIdTime(scoreId: string): number | null {
  if (!SCORE_ID_PATTERN.test(scoreId)) return null;
  if (scoreId[15] !== '7') return null;
  return parseInt(scoreId.slice(3, 15), 16);
}
