import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScoringClient } from '../../client/index.ts';
import { contractClients } from '../helpers/contract-client.ts';
import { admin, cfg, clickhouse } from '../../infra/harness/fixtures.ts';
import { startApi, startSink, waitFor, type ApiNode, type Service } from '../../infra/harness/processes.ts';
import { sinkGroupAtEnd } from '../../infra/harness/sink-group.ts';

/** One request along the whole path: HTTP -> Kafka -> audit sink -> ClickHouse -> explain. */
describe('walking skeleton on real Redis, Kafka and ClickHouse', () => {
  let api: ApiNode;
  let sink: Service;
  /** The typed client generated from the document; every answer is checked against it. */
  let client: (apiKey: string) => ScoringClient;
  const ch = clickhouse();

  beforeAll(async () => {
    sink = startSink(await sinkGroupAtEnd());
    api = await startApi();
    client = await contractClients(api.url);
  });

  afterAll(async () => {
    await api?.stop();
    await sink?.stop();
    await ch.close();
  });

  it('scores over HTTP, streams the record to ClickHouse and explains it', async () => {
    const org = await admin('org', 'create', '--name', 'skeleton', '--tier', 'assess');
    expect(org.org_id).toMatch(/^org_[0-9a-f]{16}$/);
    const key = await admin('key', 'create', '--org', String(org.org_id));
    expect(key.api_key).toMatch(/^frs_live_[0-9A-Za-z]{32}$/);

    const caller = client(String(key.api_key));
    const res = await caller.POST('/v1/score', {
      body: {
        subject: { phone_number: '+447911123456', ip_address: '81.2.69.142' },
        client_reference: 'walking-skeleton',
      },
    });
    expect(res.response.status).toBe(200);
    expect(res.response.headers.get('x-request-id')).toBeTruthy();
    const body = res.data!;
    expect(body.tier).toBe('assess');
    expect(body.score_type).toBe('ranking');
    expect(body.client_reference).toBe('walking-skeleton');
    expect(body.subject?.phone_number?.valid).toBe(true);

    const row = await waitFor(
      'the score row in ClickHouse',
      async () => {
        const rs = await ch.query({
          query: `SELECT score_id, org_id, score FROM ${cfg.CLICKHOUSE_DATABASE}.scores WHERE score_id = '${body.score_id}'`,
          format: 'JSONEachRow',
        });
        const rows = await rs.json<{ score_id: string; org_id: string; score: number }>();
        return rows[0];
      },
      60_000,
      250,
    );
    expect(row.org_id).toBe(org.org_id);
    expect(Number(row.score)).toBe(body.score);

    const explain = await caller.GET('/v1/explain/{score_id}', {
      params: { path: { score_id: body.score_id } },
    });
    expect(explain.response.status).toBe(200);
    const ex = explain.data!;
    expect(ex.score_id).toBe(body.score_id);
    expect(ex.response).toEqual(body);
    expect(ex.request.subject).toEqual({ phone_number: '+447911123456', ip_address: '81.2.69.142' });
  });

  it('refuses a missing or unknown key with 401 and the error shape', async () => {
    const res = await client('frs_live_' + 'x'.repeat(32)).POST('/v1/score', {
      body: { subject: { ip_address: '1.1.1.1' } },
    });
    expect(res.response.status).toBe(401);
    expect(res.response.headers.get('www-authenticate')).toBe('Bearer');
    expect(res.error!.errors[0]!.code).toBe('E_UNAUTHENTICATED');
  });

  it('the API node and the sink exit 0 on SIGTERM', async () => {
    expect(await api.stop('SIGTERM')).toBe(0);
    expect(await sink.stop('SIGTERM')).toBe(0);
  });
});
