/**
 * The ledger feed's reads of one turn as one HMGET per key (services/api/capabilities/feed-batch.ts),
 * on the real Redis: each caller gets its own fields' values in its own order, whatever else the
 * turn read, and an error reaches every caller of the batch that failed and no other.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { FeedBatch } from '../../services/api/capabilities/feed-batch.ts';
import { redis as testRedis } from '../../infra/harness/fixtures.ts';

describe('FeedBatch', () => {
  const redis = testRedis();
  const prefix = `frs:test:feed-batch:${Date.now()}`;
  const feedA = `${prefix}:a`;
  const feedB = `${prefix}:b`;
  const notAHash = `${prefix}:string`;
  afterAll(async () => {
    await redis.del(feedA, feedB, notAHash);
    redis.disconnect();
  });

  it('answers each read of a turn with its own fields, across keys and past one command of fields', async () => {
    const fields = Array.from({ length: 2_500 }, (_, i) => `f${i}`);
    await redis.hset(feedA, Object.fromEntries(fields.map((f, i) => [f, String(i)])));
    await redis.hset(feedB, { f1: 'b1', f7: 'b7' });
    const batch = new FeedBatch(redis);
    // 1 250 reads of two fields each (one absent) on feed A, in one turn: 2 500 fields, more
    // than one HMGET takes; interleaved with reads of feed B.
    const readsA = Array.from({ length: 1_250 }, (_, i) => [`f${(i * 7) % 2_500}`, `absent${i}`]);
    const pendingA = readsA.map((f) => batch.hmget(feedA, f));
    const pendingB = [batch.hmget(feedB, ['f7', 'f1']), batch.hmget(feedB, ['f2'])];
    const answersA = await Promise.all(pendingA);
    answersA.forEach((values, i) => expect(values).toEqual([String((i * 7) % 2_500), null]));
    expect(await Promise.all(pendingB)).toEqual([['b7', 'b1'], [null]]);
  });

  it('rejects every read of a failed batch and answers the other keys', async () => {
    await redis.set(notAHash, 'x');
    const batch = new FeedBatch(redis);
    const failed = [batch.hmget(notAHash, ['a']), batch.hmget(notAHash, ['b', 'c'])];
    const fine = batch.hmget(feedB, ['f1']);
    for (const read of failed) await expect(read).rejects.toThrow(/WRONGTYPE/);
    expect(await fine).toEqual(['b1']);
  });
});
