import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExplainCache, explainKey } from '../../services/api/explain-cache.ts';
import { createRedis, type Redis } from '../../shared/clients/redis.ts';
import { createLogger } from '../../shared/logger.ts';
import { PrivateRedis } from '../helpers/private-redis.ts';
import { sleep, waitFor } from '../helpers/wait.ts';

describe('explain copies while the cache server is frozen', () => {
  let server: PrivateRedis;
  let client: Redis;

  beforeAll(async () => {
    server = await PrivateRedis.start();
    // The API's own client settings: fail fast, 250 ms command timeout.
    client = createRedis(server.url, { failFast: true, connectionName: 'frs-test-explain-frozen' });
    await once(client, 'ready');
  });

  afterAll(async () => {
    client?.disconnect();
    await server?.destroy();
  });

  it('keeps at most the bound of copies waiting, skips the rest, and writes again once it answers', async () => {
    const cache = new ExplainCache(client, createLogger('test', 'silent'), 50, 1_000_000);
    // Unanswered and held back: what the client keeps in memory for this connection.
    const waiting = () => client.commandQueue.length + client.autoPipelineQueueSize;
    const record = JSON.stringify({ pad: 'x'.repeat(3_000) });
    server.pause();
    try {
      // Copies arrive over time, as scores do.
      for (let i = 0; i < 300; i++) {
        cache.put('org_frozen', `sc_frozen_${i}`, record);
        await sleep(1);
      }
      expect(waiting()).toBe(50);
      // The skipped 250, and any sent copy whose command timed out.
      expect(cache.failed).toBeGreaterThanOrEqual(250);
    } finally {
      server.resume();
    }
    await waitFor('the queue to drain', async () => waiting() === 0);
    cache.put('org_frozen', 'sc_after_thaw', record);
    await waitFor(
      'the copy after the thaw',
      async () => (await client.get(explainKey('org_frozen', 'sc_after_thaw'))) === record,
    );
  });
});
