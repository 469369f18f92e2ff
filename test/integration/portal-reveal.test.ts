/**
 * "Reveal subjects" on the Activity page: the feed stores subjects masked, so the clear subject
 * of a shown row comes from the score's own record, the Redis explain copy first, then ClickHouse.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { ExplainCache, explainKey } from '../../shared/audit/explain-cache.ts';
import { createClickHouse } from '../../shared/clients/clickhouse.ts';
import { newScoreId } from '../../shared/ids.ts';
import { createLogger } from '../../shared/logger.ts';
import { SubjectReveal } from '../../services/portal/subject-reveal.ts';
import { cfg, clickhouse, explainRedis } from '../../infra/harness/fixtures.ts';

const log = createLogger('portal-reveal-test', 'silent');
const ch = clickhouse();
const cache = explainRedis();
afterAll(async () => {
  await ch.close();
  cache.disconnect();
});

const orgId = `org_reveal${Date.now().toString(16)}`;
const second = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');

describe('SubjectReveal', () => {
  it('reveals from the explain copy, then from ClickHouse, and leaves unknown ids out', async () => {
    const now = Date.now();
    const [fromCache, fromHistory, unknown] = [
      newScoreId(now - 2_000),
      newScoreId(now - 1_000),
      newScoreId(now),
    ];
    await cache.set(
      explainKey(orgId, fromCache),
      JSON.stringify({
        score_id: fromCache,
        org_id: orgId,
        scored_at_ms: now - 2_000,
        request: { subject: { phone_number: '+447911123456' } },
        response: {},
        evidence: {},
      }),
      'EX',
      60,
    );
    await ch.insert({
      table: `${cfg.CLICKHOUSE_DATABASE}.scores`,
      format: 'JSONEachRow',
      values: [
        {
          score_id: fromHistory,
          org_id: orgId,
          scored_at: second(now - 1_000),
          scored_at_ms: now - 1_000,
          request_json: JSON.stringify({ subject: { ip_address: '81.2.69.142' } }),
        },
      ],
    });
    const reveal = new SubjectReveal({
      recent: new ExplainCache(cache, log),
      ch,
      database: cfg.CLICKHOUSE_DATABASE,
      log,
    });
    const got = await reveal.subjects(orgId, [fromCache, fromHistory, unknown, 'sc_not-an-id']);
    expect(Object.fromEntries(got)).toEqual({
      [fromCache]: { phone_number: '+447911123456' },
      [fromHistory]: { ip_address: '81.2.69.142' },
    });
    // Another organisation's page reveals none of them.
    expect((await reveal.subjects('org_someoneelse', [fromCache, fromHistory])).size).toBe(0);
  });

  it('leaves rows masked, without throwing, while ClickHouse is unreachable', async () => {
    const down = createClickHouse('http://127.0.0.1:9');
    try {
      const reveal = new SubjectReveal({
        recent: new ExplainCache(cache, log),
        ch: down,
        database: cfg.CLICKHOUSE_DATABASE,
        log,
      });
      expect((await reveal.subjects(orgId, [newScoreId()])).size).toBe(0);
    } finally {
      await down.close();
    }
  });
});
