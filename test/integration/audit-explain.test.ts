import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../infra/clickhouse/migrate.ts';
import { explainKey } from '../../shared/audit/explain-cache.ts';
import { toRow } from '../../services/audit-sink/sink.ts';
import { AuditRecord } from '../../shared/audit/record.ts';
import { newScoreId, scoreIdTime } from '../../shared/ids.ts';
import type { ScoreRequest, ScoringClient } from '../../client/index.ts';
import { contractClients } from '../helpers/contract-client.ts';
import { clickhouse, explainRedis, orgWithKey, redis } from '../../infra/harness/fixtures.ts';
import { startNode, type InProcessNode } from '../helpers/in-process.ts';
import { waitFor } from '../../infra/harness/wait.ts';

/** No sink runs here: ClickHouse gets a row only when the test writes it. */
const DB = 'frs_explain_test';

/**
 * Score and explain go through the typed client generated from the document (client/), and every
 * answer is checked against the document the node serves (test/helpers/contract-client.ts).
 */
describe('GET /v1/explain before and after the audit pipeline delivered the score', () => {
  const ch = clickhouse();
  const r = explainRedis();
  const durable = redis();
  let api: InProcessNode;
  let client: (apiKey: string) => ScoringClient;

  beforeAll(async () => {
    await ch.command({ query: `DROP DATABASE IF EXISTS ${DB}` });
    await migrate(ch, DB, () => undefined);
    api = await startNode({ CLICKHOUSE_DATABASE: DB });
    client = await contractClients(api.url);
  });

  afterAll(async () => {
    await api?.stop();
    await ch.command({ query: `DROP DATABASE IF EXISTS ${DB}` });
    await ch.close();
    r.disconnect();
    durable.disconnect();
  });

  const explainWith = (c: ScoringClient, id: string) =>
    c.GET('/v1/explain/{score_id}', { params: { path: { score_id: id } } });
  const explain = (id: string, key: string) => explainWith(client(key), id);

  it('answers at once from the Redis copy, then from ClickHouse, and only to the owning org', async () => {
    const org = await orgWithKey('assess');
    const other = await orgWithKey('bureau');
    const request: ScoreRequest = {
      subject: { phone_number: '+447911123456', ip_address: '81.2.69.142' },
      options: { explain: false },
      client_reference: 'explain-test',
    };
    const res = await client(org.apiKey).POST('/v1/score', { body: request });
    expect(res.response.status).toBe(200);
    const body = res.data!;
    expect(body.components).toBeUndefined();

    // Immediately: nothing is in ClickHouse, the Redis copy answers.
    const first = await waitFor(
      'the explain copy',
      async () => (await explain(body.score_id, org.apiKey)).data,
    );
    expect(first.response).toEqual(body);
    expect(first.request).toEqual(request);
    expect(first.evidence.components.length).toBeGreaterThan(0);
    expect(first.score_version).toBe(body.score_version);
    const scoredAt = new Date(first.scored_at);
    const until = new Date(scoredAt);
    until.setUTCMonth(until.getUTCMonth() + 13);
    expect(first.retained_until).toBe(until.toISOString());

    for (const [id, key] of [
      [body.score_id, other.apiKey],
      [`sc_${'0'.repeat(32)}`, org.apiKey],
      ['sc_not-an-id', org.apiKey],
    ] as const) {
      const e = await explain(id, key);
      expect(e.response.status).toBe(404);
      expect(e.error!.errors[0]!.code).toBe('E_SCORE_NOT_FOUND');
    }

    // The copy lives on the cache server, never on the durable one.
    expect(await durable.exists(explainKey(org.orgId, body.score_id))).toBe(0);

    // Later: the copy expired and the sink wrote the same record; ClickHouse answers identically.
    const record = AuditRecord.parse(JSON.parse((await r.get(explainKey(org.orgId, body.score_id)))!));
    expect(await r.ttl(explainKey(org.orgId, body.score_id))).toBeGreaterThan(14 * 60);
    await r.del(explainKey(org.orgId, body.score_id));
    expect((await explain(body.score_id, org.apiKey)).response.status).toBe(404);
    await ch.insert({ table: `${DB}.scores`, values: [toRow(record)], format: 'JSONEachRow' });
    const later = await explain(body.score_id, org.apiKey);
    expect(later.response.status).toBe(200);
    expect(later.data).toEqual(first);
    expect((await explain(body.score_id, other.apiKey)).response.status).toBe(404);
  });

  it('scores with the explain cache server down, and explains from ClickHouse once delivered', async () => {
    // Nothing listens on this port: the node can keep no explain copy at all.
    const noCache = await startNode({ CLICKHOUSE_DATABASE: DB, EXPLAIN_REDIS_URL: 'redis://127.0.0.1:6391' });
    try {
      const org = await orgWithKey('bureau');
      const c = (await contractClients(noCache.url))(org.apiKey);
      const request = { subject: { phone_number: '+447400123456', ip_address: '81.2.69.160' } };
      const res = await c.POST('/v1/score', { body: request });
      expect(res.response.status).toBe(200);
      const body = res.data!;
      const get = () => explainWith(c, body.score_id);
      // Until the pipeline delivers it the score is not found, rather than an error.
      const before = await get();
      expect(before.response.status).toBe(404);
      expect(before.error!.errors[0]!.code).toBe('E_SCORE_NOT_FOUND');
      // The sink writes the time the score was made, which is the time in its id: the lookup reads
      // that one second, however long after the score this row arrives.
      const scoredAtMs = scoreIdTime(body.score_id)!;
      const record = {
        v: 1 as const,
        score_id: body.score_id,
        org_id: org.orgId,
        tier: body.tier,
        scored_at: new Date(scoredAtMs).toISOString(),
        scored_at_ms: scoredAtMs,
        node_id: 'test',
        latency_ms: 1,
        request,
        response: body,
        evidence: { components: [] },
      };
      await ch.insert({
        table: `${DB}.scores`,
        values: [toRow(AuditRecord.parse(record))],
        format: 'JSONEachRow',
      });
      const after = await get();
      expect(after.response.status).toBe(200);
      expect(after.data!.response).toEqual(body);
      const metrics = await (await fetch(`${noCache.url}/metrics`)).text();
      expect(metrics).toMatch(/^frs_explain_copies_skipped [1-9]/m);
    } finally {
      await noCache.stop();
    }
  });

  it('answers 503 E_HISTORY_UNAVAILABLE, as documented, when ClickHouse cannot be read', async () => {
    // Nothing listens on this port: a score past the fresh-score cache cannot be looked up.
    const noHistory = await startNode({ CLICKHOUSE_URL: 'http://127.0.0.1:6392' });
    try {
      const org = await orgWithKey('assess');
      const c = (await contractClients(noHistory.url))(org.apiKey);
      // A well-formed id of now (an id of 1970 is past retention without asking ClickHouse).
      const res = await explainWith(c, newScoreId());
      expect(res.response.status).toBe(503);
      expect(res.response.headers.get('retry-after')).toBe('5');
      expect(res.error!.errors[0]!.code).toBe('E_HISTORY_UNAVAILABLE');
      // Scoring is unaffected.
      const scored = await c.POST('/v1/score', { body: { subject: { ip_address: '81.2.69.142' } } });
      expect(scored.response.status).toBe(200);
    } finally {
      await noHistory.stop();
    }
  });
});
