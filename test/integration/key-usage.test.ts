import { afterAll, describe, expect, it } from 'vitest';
import { KeyUsage } from '../../services/api/key-usage.ts';
import { createLogger } from '../../shared/logger.ts';
import { keysLastUsedKey } from '../../shared/orgs/keyspace.ts';
import { OrgStore } from '../../shared/orgs/store.ts';
import { redis } from '../helpers/fixtures.ts';

describe("API keys' last-used times", () => {
  const r = redis();
  const log = createLogger('test', 'silent');
  afterAll(() => r.disconnect());

  it('writes nothing per request, one time per key per flush, and the latest time wins across nodes', async () => {
    const org = `org_usage${Date.now()}`;
    const nodeA = new KeyUsage(r, log);
    const nodeB = new KeyUsage(r, log);
    for (let i = 0; i < 1000; i++) nodeA.touch(org, 'key_a', 1_000 + i);
    nodeA.touch(org, 'key_b', 5_000);
    // Touching is memory only: nothing is in Redis before a flush.
    expect(await r.exists(keysLastUsedKey(org))).toBe(0);
    await nodeA.flush();
    expect(Object.fromEntries(await new OrgStore(r).keysLastUsed(org))).toEqual({
      key_a: 1_999,
      key_b: 5_000,
    });
    // A node flushing an older time later does not move it back.
    nodeB.touch(org, 'key_a', 1_500);
    nodeB.touch(org, 'key_b', 6_000);
    await nodeB.flush();
    expect(Object.fromEntries(await new OrgStore(r).keysLastUsed(org))).toEqual({
      key_a: 1_999,
      key_b: 6_000,
    });
    // An empty flush sends nothing and changes nothing.
    await nodeB.stop();
    expect(await r.zcard(keysLastUsedKey(org))).toBe(2);
    await r.del(keysLastUsedKey(org));
  });
});
