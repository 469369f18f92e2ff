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
