/**
 * The ledger feed's reads of one event-loop turn as one HMGET per feed key. Every scored request
 * reads a field or two of the same hash (the feed's current version); sent one HMGET each, they
 * cost a command object, a timer, a promise and a reply to decode per request on the API node.
 * Gathered until the turn's I/O callbacks have run (setImmediate, the same point at which the
 * client's auto-pipeline writes), they cost one.
 *
 * The batch is scheduled by the turn's first read, which the score route makes before the
 * controls script: so it is sent ahead of the client's own flush and rides the same write.
 */
import type { RedisClient } from '../../../shared/clients/redis.ts';

/** At most this many fields in one HMGET; a fuller batch is sent at once. */
const MAX_FIELDS = 1_000;

interface Waiter {
  at: number;
  count: number;
  resolve: (values: (string | null)[]) => void;
  reject: (err: unknown) => void;
}

interface Batch {
  fields: string[];
  waiters: Waiter[];
}

export class FeedBatch {
  private readonly redis: RedisClient;
  private batches = new Map<string, Batch>();

  constructor(redis: RedisClient) {
    this.redis = redis;
  }

  /** The values of `fields` in the hash `key`, in order, as HMGET answers them. */
  hmget(key: string, fields: string[]): Promise<(string | null)[]> {
    if (this.batches.size === 0) setImmediate(this.flush);
    let batch = this.batches.get(key);
    if (batch === undefined) {
      batch = { fields: [], waiters: [] };
      this.batches.set(key, batch);
    }
    const { promise, resolve, reject } = Promise.withResolvers<(string | null)[]>();
    batch.waiters.push({ at: batch.fields.length, count: fields.length, resolve, reject });
    batch.fields.push(...fields);
    if (batch.fields.length >= MAX_FIELDS) {
      this.batches.delete(key);
      this.send(key, batch);
    }
    return promise;
  }

  private readonly flush = (): void => {
    const batches = this.batches;
    if (batches.size === 0) return;
    this.batches = new Map();
    for (const [key, batch] of batches) this.send(key, batch);
  };

  private send(key: string, { fields, waiters }: Batch): void {
    this.redis.hmget(key, ...fields).then(
      (values) => {
        for (const w of waiters) w.resolve(values.slice(w.at, w.at + w.count));
      },
      (err: unknown) => {
        for (const w of waiters) w.reject(err);
      },
    );
  }
}
