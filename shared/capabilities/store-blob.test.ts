import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { RedisClient } from '../clients/redis.ts';
import { BLOB_SLICE_BYTES, SnapshotStore } from './store.ts';

/** The string commands a blob read uses, over a Map; `refuse` makes STRLEN fail as an old ACL does. */
function fakeRedis(refuse = false) {
  const data = new Map<string, Buffer>();
  const calls = { getrange: 0, get: 0 };
  const redis = {
    strlen: async (key: string) => {
      if (refuse) throw new Error("NOPERM User frs-api has no permissions to run the 'strlen' command");
      return data.get(key)?.length ?? 0;
    },
    getrangeBuffer: async (key: string, from: number, to: number) => {
      calls.getrange++;
      return (data.get(key) ?? Buffer.alloc(0)).subarray(from, to + 1);
    },
    getBuffer: async (key: string) => {
      calls.get++;
      return data.get(key) ?? null;
    },
  };
  return { data, calls, redis: redis as unknown as RedisClient };
}

describe('a snapshot blob read from Redis', () => {
  const payload = randomBytes(Math.floor(2.5 * BLOB_SLICE_BYTES));

  it('comes in slices, joined into one buffer of its own', async () => {
    const { data, calls, redis } = fakeRedis();
    const store = new SnapshotStore(redis, 'frs:cap');
    data.set(store.blobKey('ip_network_type', 'v1'), payload);
    const read = await store.blob('ip_network_type', 'v1');
    expect(read?.equals(payload)).toBe(true);
    expect(calls).toEqual({ getrange: 3, get: 0 });
    // Its own memory: the decoder's typed arrays are aligned views of it.
    expect(read!.byteOffset).toBe(0);
  });

  it('is gone when the version is missing, or deleted while it is read', async () => {
    const { data, redis } = fakeRedis();
    const store = new SnapshotStore(redis, 'frs:cap');
    expect(await store.blob('ip_network_type', 'v1')).toBeNull();
    const key = store.blobKey('ip_network_type', 'v2');
    data.set(key, payload);
    const getrange = redis.getrangeBuffer.bind(redis);
    redis.getrangeBuffer = (async (k: string, from: number, to: number) => {
      const slice = await getrange(k, from, to);
      data.delete(key);
      return slice;
    }) as typeof redis.getrangeBuffer;
    expect(await store.blob('ip_network_type', 'v2')).toBeNull();
  });

  it('is read whole by a Redis user the ACL does not allow slices', async () => {
    const { data, calls, redis } = fakeRedis(true);
    const store = new SnapshotStore(redis, 'frs:cap');
    data.set(store.blobKey('ip_network_type', 'v1'), payload);
    expect((await store.blob('ip_network_type', 'v1'))?.equals(payload)).toBe(true);
    expect((await store.blob('ip_network_type', 'v1'))?.equals(payload)).toBe(true);
    expect(calls).toEqual({ getrange: 0, get: 2 });
  });
});
