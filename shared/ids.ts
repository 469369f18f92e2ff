import { randomFillSync } from 'node:crypto';

export const SCORE_ID_PATTERN = /^sc_[0-9a-f]{32}$/;
export const OUTCOME_ID_PATTERN = /^oc_[0-9a-f]{32}$/;

/**
 * `sc_` + the 32 hex digits of a UUIDv7 (RFC 9562): 48 bits of epoch milliseconds, then version,
 * random and variant bits. Ids sort by time and an explain lookup reads the month from the id.
 */
export function newScoreId(nowMs: number = Date.now()): string {
  return `sc_${uuidV7Hex(nowMs)}`;
}

/** `oc_` + the 32 hex digits of a UUIDv7, like score ids: outcome ids sort by receipt time. */
export function newOutcomeId(nowMs: number = Date.now()): string {
  return `oc_${uuidV7Hex(nowMs)}`;
}

function uuidV7Hex(nowMs: number): string {
  const b = Buffer.allocUnsafe(16);
  randomBytesInto(b);
  b.writeUIntBE(nowMs, 0, 6);
  b[6] = 0x70 | (b[6]! & 0x0f);
  b[8] = 0x80 | (b[8]! & 0x3f);
  return b.toString('hex');
}

// CSPRNG bytes drawn 4 KiB at a time: one randomFillSync per 256 ids instead of one per id, which
// showed in the score path's profile.
const pool = Buffer.allocUnsafe(4096);
let poolOffset = pool.length;

function randomBytesInto(target: Buffer): void {
  if (poolOffset + target.length > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  pool.copy(target, 0, poolOffset, poolOffset + target.length);
  poolOffset += target.length;
}

/** Epoch milliseconds embedded in a score id, or null when the id is not one of ours. */
export function scoreIdTime(scoreId: string): number | null {
  if (!SCORE_ID_PATTERN.test(scoreId)) return null;
  if (scoreId[15] !== '7') return null;
  return parseInt(scoreId.slice(3, 15), 16);
}
