/**
 * The ledger's reads of one event-loop turn as few commands. Every scored request reads a field
 * or two of the same hash (the feed's current version) and the votes hash of each of its
 * subjects; sent one command each, they cost a command object, a timer, a promise and a reply to
 * decode per read on the API node. Gathered until the turn's I/O callbacks have run (setImmediate,
 * the same point at which the client's auto-pipeline writes), they cost one HMGET per feed key
 * and one script for all the votes hashes.
 *
 * The batch is scheduled by the turn's first read, which the score route makes before the
 * controls script: so it is sent ahead of the client's own flush and rides the same write.
 * On a Redis Cluster each votes hash lives in its own slot and no script may span them: the
 * votes are then read one HGETALL each, as before.
 */
import { hash } from 'node:crypto';
import { Cluster } from 'ioredis';
import type { RedisClient } from '../../../shared/clients/redis.ts';

/** At most this many fields or keys in one command; a fuller batch is sent at once. */
const MAX_PER_COMMAND = 500;

/**
 * HGETALL of every key, in order: one reply of field/value lists. Run with EVALSHA_RO (Redis 7):
 * the API's ACL user may only read the votes hashes, and plain EVAL counts its keys as written.
 */
const READ_HASHES = `local out = {}
for i = 1, #KEYS do out[i] = redis.call('HGETALL', KEYS[i]) end
return out`;
const READ_HASHES_SHA = hash('sha1', READ_HASHES);

type Values = (string | null)[];
type Hash = Record<string, string>;

interface Waiter<T> {
  at: number;
  count: number;
  resolve: (values: T[]) => void;
  reject: (err: unknown) => void;
}

/** One command's worth of reads: what to send, and who waits for which slice of the reply. */
class Batch<T> {
  readonly args: string[] = [];
  readonly waiters: Waiter<T>[] = [];

  add(args: string[]): Promise<T[]> {
    const { promise, resolve, reject } = Promise.withResolvers<T[]>();
    this.waiters.push({ at: this.args.length, count: args.length, resolve, reject });
    this.args.push(...args);
    return promise;
  }

  settle(reply: Promise<T[]>): void {
    reply.then(
      (values) => {
        for (const w of this.waiters) w.resolve(values.slice(w.at, w.at + w.count));
      },
      (err: unknown) => {
        for (const w of this.waiters) w.reject(err);
      },
    );
  }
}

export class LedgerBatch {
  private readonly redis: RedisClient;
  /** A Redis Cluster: votes hashes are read one command each. */
  private readonly perKeyVotes: boolean;
  private feeds = new Map<string, Batch<string | null>>();
  private votes: Batch<Hash> | undefined;
  private scheduled = false;

  constructor(redis: RedisClient) {
    this.redis = redis;
    this.perKeyVotes = redis instanceof Cluster;
  }

  /** The values of `fields` in the feed hash `key`, in order, as HMGET answers them. */
  feed(key: string, fields: string[]): Promise<Values> {
    this.schedule();
    let batch = this.feeds.get(key);
    if (batch === undefined) {
      batch = new Batch();
      this.feeds.set(key, batch);
    }
    const values = batch.add(fields);
    if (batch.args.length >= MAX_PER_COMMAND) {
      this.feeds.delete(key);
      this.sendFeed(key, batch);
    }
    return values;
  }

  /** Every hash in `keys`, in order, as HGETALL answers them (an absent key is an empty hash). */
  hashes(keys: string[]): Promise<Hash[]> {
    if (keys.length === 0) return Promise.resolve([]);
    if (this.perKeyVotes) return Promise.all(keys.map((k) => this.redis.hgetall(k)));
    this.schedule();
    this.votes ??= new Batch();
    const hashes = this.votes.add(keys);
    if (this.votes.args.length >= MAX_PER_COMMAND) {
      this.sendVotes(this.votes);
      this.votes = undefined;
    }
    return hashes;
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(this.flush);
  }

  private readonly flush = (): void => {
    this.scheduled = false;
    const feeds = this.feeds;
    this.feeds = new Map();
    for (const [key, batch] of feeds) this.sendFeed(key, batch);
    if (this.votes !== undefined) this.sendVotes(this.votes);
    this.votes = undefined;
  };

  private sendFeed(key: string, batch: Batch<string | null>): void {
    batch.settle(this.redis.hmget(key, ...batch.args));
  }

  private sendVotes(batch: Batch<Hash>): void {
    const keys = batch.args;
    // The script by its digest; once per server start (or after SCRIPT FLUSH) by its text.
    const read = (
      this.redis.call('evalsha_ro', READ_HASHES_SHA, keys.length, ...keys) as Promise<string[][]>
    ).catch((err: unknown) =>
      err instanceof Error && err.message.startsWith('NOSCRIPT')
        ? (this.redis.call('eval_ro', READ_HASHES, keys.length, ...keys) as Promise<string[][]>)
        : Promise.reject(err),
    );
    batch.settle(read.then((lists) => lists.map(toHash)));
  }
}

/** A field/value list as HGETALL's object. */
function toHash(list: string[]): Hash {
  const out: Hash = {};
  for (let i = 0; i + 1 < list.length; i += 2) out[list[i]!] = list[i + 1]!;
  return out;
}
