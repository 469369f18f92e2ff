/**
 * The snapshot the refresher publishes from the counts (services/refresher/publish-counted.ts):
 * the subjects past the threshold, read through the hot set, as a sorted digest table.
 */
import { createHash } from 'node:crypto';
import type { RedisClient } from '../../clients/redis.ts';
import { collectHot } from './counter.ts';
import { MIN_ORGANISATIONS } from './subjects.ts';
import { encodeVelocityTable } from './table.ts';

export interface CountedSnapshot {
  payload: Buffer;
  /** Subjects in the table. */
  entries: number;
  /** Digest of the table without its counting time: equal when no bucket moved. */
  digest: string;
}

export async function velocitySnapshot(
  redis: RedisClient,
  prefix: string,
  nowMs: number,
): Promise<CountedSnapshot> {
  const rows = await collectHot(redis, prefix, nowMs);
  const digest = createHash('sha256').update(encodeVelocityTable(rows, 0)).digest('hex');
  return {
    payload: encodeVelocityTable(rows, nowMs),
    entries: rows.filter((r) => r.organisations.some((n) => n >= MIN_ORGANISATIONS)).length,
    digest,
  };
}
