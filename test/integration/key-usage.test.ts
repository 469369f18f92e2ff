import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { KeyUsage } from '../../services/api/key-usage.ts';
import { createLogger } from '../../shared/logger.ts';
import { keysLastUsedKey } from '../../shared/orgs/keyspace.ts';
import { OrgStore } from '../../shared/orgs/store.ts';
import { redis, redisAs } from '../../infra/harness/fixtures.ts';

describe("API keys' last-used times", () => {
  const r = redis();
  // The nodes write as the API's Redis ACL user, as in a deployment: its rules must allow the write.
  const api = redisAs('api');
  const log = createLogger('test', 'silent');
  afterAll(() => {
    r.disconnect();
    api.disconnect();
  });

  it('writes nothing per request, one time per key per flush, and the latest time wins across nodes', async () => {
    const org = `org_usage${Date.now()}`;
    const nodeA = new KeyUsage(api, log);
    const nodeB = new KeyUsage(api, log);
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

  it('a refused write is kept and reported, not dropped in silence', async () => {
    // The refresher's user may not write organisations' keys: its ZADD is refused with NOPERM.
    const refresher = redisAs('refresher');
    const lines: string[] = [];
    const usage = new KeyUsage(refresher, pino({ level: 'warn' }, { write: (l: string) => lines.push(l) }));
    const org = `org_usage_refused${Date.now()}`;
    try {
      usage.touch(org, 'key_a', 1_000);
      await usage.flush();
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/NOPERM.*key last-used times not written/);
      expect(await r.exists(keysLastUsedKey(org))).toBe(0);
      // Kept, not dropped: the next flush tries the same time again.
      await usage.flush();
      expect(lines).toHaveLength(2);
    } finally {
      refresher.disconnect();
    }
  });
});
