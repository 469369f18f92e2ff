import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { FlashStore } from './flash.ts';

/** The two commands FlashStore uses, over a Map. */
function fakeRedis(): { redis: Redis; values: Map<string, string> } {
  const values = new Map<string, string>();
  const redis = {
    set: async (k: string, v: string) => void values.set(k, v),
    getdel: async (k: string) => {
      const v = values.get(k) ?? null;
      values.delete(k);
      return v;
    },
  } as unknown as Redis;
  return { redis, values };
}

const KEY = `frs_live_${'A'.repeat(32)}`;

describe('one-time messages', () => {
  it('are shown once, to their session only, and never stored in clear', async () => {
    const { redis, values } = fakeRedis();
    const flash = new FlashStore(redis);
    const message = { created: { key_id: 'key_1', api_key: KEY, label: 'x' } };
    await flash.put('sid-a', message);
    expect([...values.values()].join()).not.toContain(KEY);
    expect(await flash.take('sid-a')).toEqual(message);
    expect(await flash.take('sid-a')).toBeNull();
  });

  it('cannot be opened with another session id', async () => {
    const { redis, values } = fakeRedis();
    const flash = new FlashStore(redis);
    await flash.put('sid-a', { notice: 'hello' });
    // The same sealed value under the key of session b: it does not open.
    const [, sealed] = [...values.entries()][0]!;
    const b = new FlashStore(redis);
    await b.put('sid-b', { notice: 'other' });
    const keyOfB = [...values.keys()].find((k) => values.get(k) !== sealed)!;
    values.set(keyOfB, sealed);
    expect(await b.take('sid-b')).toBeNull();
  });
});
