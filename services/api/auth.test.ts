import { EventEmitter } from 'node:events';
import type { Redis } from 'ioredis';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { keyDigest } from '../../shared/orgs/keys.ts';
import { KEYS_REVOKED_CHANNEL } from '../../shared/orgs/keyspace.ts';
import type { OrgStore } from '../../shared/orgs/store.ts';
import { Authenticator } from './auth.ts';

const KEY = `frs_live_${'a'.repeat(32)}`;
const FOUND = {
  key: { key_id: 'key_1', org_id: 'org_1', status: 'active' as const, created_at: '' },
  org: { org_id: 'org_1' },
};

describe('revocation tombstone', () => {
  it('a lookup in flight when the revocation arrives does not cache the key again', async () => {
    let answer: ((v: typeof FOUND) => void) | undefined;
    let reads = 0;
    const store = {
      resolveDigest: () => {
        reads++;
        return new Promise((r) => (answer = r));
      },
      activeKeys: async () => [],
    } as unknown as OrgStore;
    const subscriber = Object.assign(new EventEmitter(), { subscribe: async () => 2 }) as unknown as Redis;
    const auth = new Authenticator({ store, replicaStore: store }, pino({ level: 'silent' }), {
      negativeMs: 0,
    });
    await auth.follow(subscriber);
    await auth.load();

    const inFlight = auth.resolve(KEY);
    // The revocation arrives while Redis is still answering with the key's old, active record.
    subscriber.emit('message', KEYS_REVOKED_CHANNEL, keyDigest(KEY));
    answer!(FOUND);
    expect(await inFlight).toBeNull();
    // And it was not cached: the next request asks Redis again (which now says revoked).
    const next = auth.resolve(KEY);
    answer!(FOUND);
    expect(await next).toBeNull();
    expect(reads).toBe(2);
  });
});

describe('rolled key', () => {
  it('is refused from its replica entry at its end, without asking Redis', async () => {
    let now = 1_000_000;
    const realNow = Date.now;
    Date.now = () => now;
    try {
      let reads = 0;
      const rolled = { ...FOUND, key: { ...FOUND.key, expires_at: now + 5_000 } };
      const store = {
        resolveDigest: async () => {
          reads++;
          return rolled;
        },
        activeKeys: async () => [{ digest: keyDigest(KEY), ...rolled }],
      } as unknown as OrgStore;
      const auth = new Authenticator({ store, replicaStore: store }, pino({ level: 'silent' }), {
        freshMs: 60_000,
      });
      await auth.load();
      expect(await auth.resolve(KEY)).not.toBeNull();
      now += 4_999;
      expect(await auth.resolve(KEY)).not.toBeNull();
      now += 1;
      expect(await auth.resolve(KEY)).toBeNull();
      // Served from the replica until then, and refused by it: Redis was never asked.
      expect(reads).toBe(0);
    } finally {
      Date.now = realNow;
    }
  });
});
