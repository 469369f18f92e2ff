/**
 * The ledger's reads of one turn as few commands (services/api/capabilities/ledger-batch.ts), on
 * the real Redis: each caller gets its own fields' values and its own hashes, in its own order,
 * whatever else the turn read, and an error reaches every caller of the batch that failed and
 * no other.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { LedgerBatch } from '../../services/api/capabilities/ledger-batch.ts';
import { redis as testRedis } from '../../infra/harness/fixtures.ts';

describe('LedgerBatch', () => {
  const redis = testRedis();
  const prefix = `frs:test:ledger-batch:${Date.now()}`;
  const feedA = `${prefix}:a`;
  const feedB = `${prefix}:b`;
  const notAHash = `${prefix}:string`;
  const votes = (i: number) => `${prefix}:votes:${i}`;
  afterAll(async () => {
    await redis.del(feedA, feedB, notAHash, ...Array.from({ length: 1_200 }, (_, i) => votes(i)));
    redis.disconnect();
  });

  it('answers each feed read of a turn with its own fields, across keys and past one command of fields', async () => {
    const fields = Array.from({ length: 2_500 }, (_, i) => `f${i}`);
    await redis.hset(feedA, Object.fromEntries(fields.map((f, i) => [f, String(i)])));
    await redis.hset(feedB, { f1: 'b1', f7: 'b7' });
    const batch = new LedgerBatch(redis);
    // 1 250 reads of two fields each (one absent) on feed A, in one turn: 2 500 fields, more
    // than one HMGET takes; interleaved with reads of feed B.
    const readsA = Array.from({ length: 1_250 }, (_, i) => [`f${(i * 7) % 2_500}`, `absent${i}`]);
    const pendingA = readsA.map((f) => batch.feed(feedA, f));
    const pendingB = [batch.feed(feedB, ['f7', 'f1']), batch.feed(feedB, ['f2'])];
    const answersA = await Promise.all(pendingA);
    answersA.forEach((values, i) => expect(values).toEqual([String((i * 7) % 2_500), null]));
    expect(await Promise.all(pendingB)).toEqual([['b7', 'b1'], [null]]);
  });

  it('answers each votes read of a turn with its own hashes, absent ones empty, past one command of keys', async () => {
    // Every third hash exists, with fields of its own; 600 reads of two keys: 1 200 keys.
    for (let i = 0; i < 1_200; i += 3) await redis.hset(votes(i), { [`org_${i}`]: `v${i}`, seen: String(i) });
    // The script as a fresh server knows it: not at all (the batch sends its text after NOSCRIPT).
    await redis.script('FLUSH');
    const batch = new LedgerBatch(redis);
    const reads = Array.from({ length: 600 }, (_, r) => [votes(2 * r), votes(2 * r + 1)]);
    const answers = await Promise.all([...reads.map((keys) => batch.hashes(keys)), batch.hashes([])]);
    expect(answers.at(-1)).toEqual([]);
    reads.forEach((keys, r) =>
      keys.forEach((_, j) => {
        const i = 2 * r + j;
        expect(answers[r]![j]).toEqual(i % 3 === 0 ? { [`org_${i}`]: `v${i}`, seen: String(i) } : {});
      }),
    );
  });

  it('rejects every read of a failed batch and answers the other keys', async () => {
    await redis.set(notAHash, 'x');
    const batch = new LedgerBatch(redis);
    const failed = [batch.feed(notAHash, ['a']), batch.feed(notAHash, ['b', 'c'])];
    const fine = batch.feed(feedB, ['f1']);
    for (const read of failed) await expect(read).rejects.toThrow(/WRONGTYPE/);
    expect(await fine).toEqual(['b1']);
    // A votes batch holding a key of the wrong type fails as a whole, as one script.
    const votesFailed = [batch.hashes([notAHash]), batch.hashes([votes(0)])];
    for (const read of votesFailed) await expect(read).rejects.toThrow(/WRONGTYPE/);
  });
});
