import { afterAll, describe, expect, it } from 'vitest';
import { ExplainCache, explainKey } from '../../shared/audit/explain-cache.ts';
import { createLogger } from '../../shared/logger.ts';
import { explainRedis } from '../../infra/harness/fixtures.ts';
import { waitFor } from '../../infra/harness/processes.ts';

/** One busy organisation cannot take the whole explain cache: each gets a share per second. */
describe('explain cache share per organisation, on the real cache server', () => {
  const redis = explainRedis();
  afterAll(() => redis.disconnect());

  it('writes a quiet organisation’s copies while a busy one is held to its share', async () => {
    const cache = new ExplainCache(redis, createLogger('test', 'silent'), undefined, 5);
    const busy = `org_busy_${Date.now()}`;
    const quiet = `org_quiet_${Date.now()}`;
    const record = JSON.stringify({ pad: 'x'.repeat(1_000) });
    await waitFor('the cache connection', async () => redis.status === 'ready');
    for (let i = 0; i < 40; i++) cache.put(busy, `sc_${i}`, record);
    for (let i = 0; i < 3; i++) cache.put(quiet, `sc_${i}`, record);
    await waitFor(
      'the quiet copies',
      async () => (await redis.exists(...[0, 1, 2].map((i) => explainKey(quiet, `sc_${i}`)))) === 3,
    );
    const busyKept = await redis.exists(...Array.from({ length: 40 }, (_, i) => explainKey(busy, `sc_${i}`)));
    // Five a second; the loop may straddle one second boundary.
    expect(busyKept).toBeLessThanOrEqual(10);
    expect(cache.overShare).toBeGreaterThanOrEqual(30);
  });
});
