import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExplainCache, explainKey } from '../../shared/audit/explain-cache.ts';
import { RecentScores } from '../../services/api/recent-scores.ts';
import { createRedis, type Redis } from '../../shared/clients/redis.ts';
import { newScoreId } from '../../shared/ids.ts';
import { createLogger } from '../../shared/logger.ts';
import { PrivateRedis } from '../helpers/private-redis.ts';
import { pace, waitFor } from '../../infra/harness/wait.ts';

describe('explain copies and recent-score entries while the cache server is frozen', () => {
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
        await pace(1);
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

  it('holds the recent-score index entries to the same bound, and writes them again once it answers', async () => {
    const index = new RecentScores(client, createLogger('test', 'silent'), { maxPending: 50 });
    const waiting = () => client.commandQueue.length + client.autoPipelineQueueSize;
    const entry = () => ({ scored_at_ms: Date.now(), subject: { ip_address: '81.2.69.142' } });
    server.pause();
    try {
      for (let i = 0; i < 300; i++) {
        index.put('org_frozen', newScoreId(), entry());
        await pace(1);
      }
      // Two commands an entry (the field and its key's expiry), checked before each entry.
      expect(waiting()).toBeLessThanOrEqual(51);
      expect(index.skipped).toBeGreaterThanOrEqual(250);
    } finally {
      server.resume();
    }
    await waitFor('the queue to drain', async () => waiting() === 0);
    const after = newScoreId();
    index.put('org_frozen', after, entry());
    await waitFor('the entry after the thaw', () => index.get('org_frozen', after));
  });
});
