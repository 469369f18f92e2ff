/**
 * docs/data.md "One row per answer": a request scored twice because its first node died before
 * answering (the caller's retry with the same Idempotency-Key was scored again elsewhere) counts
 * once, as the score the retry got; a request without a key counts each time; another
 * organisation's equal key is another request. The API puts the digest of organisation and key in
 * the record (never the key); the rows are written as the sink writes them, on the local
 * ClickHouse 18.16 (clickhouse-current.test.ts runs the same rule on 26.x).
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../infra/clickhouse/migrate.ts';
import { clickhouse, explainRedis, orgWithKey } from '../../infra/harness/fixtures.ts';
import { waitFor } from '../../infra/harness/wait.ts';
import { insertSlice, toRow } from '../../services/audit-sink/sink.ts';
import { explainKey } from '../../shared/audit/explain-cache.ts';
import { AuditRecord } from '../../shared/audit/record.ts';
import { requestDigest } from '../../shared/audit/request-digest.ts';
import { readDay } from '../../shared/backtest/signatures.ts';
import { answeredOnly } from '../../shared/clickhouse/answered.ts';
import { auditRecord, scoreIdAt } from '../helpers/audit-rows.ts';
import { startNode, type InProcessNode } from '../helpers/in-process.ts';

const DB = `frs_onerow_${randomBytes(4).toString('hex')}`;
const ORG = 'org_0000000000onerow1';
const OTHER = 'org_0000000000onerow2';
const KEY = 'order-7731-attempt';

/**
 * One organisation's day: a request with KEY scored on n1 (whose node died before answering) and
 * again 31 s later on n2 (the answer the caller got), the first re-delivered by n1's journal; two
 * scores of the same body without a key; and another organisation's score with the same KEY.
 */
function rows(dayStartMs: number) {
  const t = dayStartMs + 3_600_000;
  const digest = requestDigest(ORG, KEY)!;
  const cutOff = auditRecord(ORG, scoreIdAt(t, 1), t, { node_id: 'n1', request_digest: digest });
  const answered = auditRecord(ORG, scoreIdAt(t + 31_000, 2), t + 31_000, {
    node_id: 'n2',
    request_digest: digest,
  });
  const keyless = [
    auditRecord(ORG, scoreIdAt(t + 40_000, 3), t + 40_000),
    auditRecord(ORG, scoreIdAt(t + 41_000, 4), t + 41_000),
  ];
  const other = auditRecord(OTHER, scoreIdAt(t + 50_000, 5), t + 50_000, {
    request_digest: requestDigest(OTHER, KEY),
  });
  return { cutOff, answered, keyless, other, all: [cutOff, answered, ...keyless, other] };
}

describe('one row per answer', () => {
  const ch = clickhouse();
  const day = '2026-11-02';
  const scenario = rows(Date.parse(`${day}T00:00:00Z`));
  const ids = async (query: string) =>
    (await (await ch.query({ query, format: 'JSONEachRow' })).json<{ score_id: string }>())
      .map((r) => r.score_id)
      .sort();

  beforeAll(async () => {
    await migrate(ch, DB, () => undefined);
    const slice = (rs: typeof scenario.all) =>
      rs.map((record) => ({ row: { ...toRow(record), inserted_at: Math.floor(Date.now() / 1000) }, record }));
    await insertSlice(ch, { table: `${DB}.scores` }, slice(scenario.all));
    // n1's journal replayed at its restart: the cut-off record once more.
    await insertSlice(ch, { table: `${DB}.scores` }, slice([scenario.cutOff]));
  });

  afterAll(async () => {
    await ch.command({ query: `DROP DATABASE IF EXISTS ${DB}` });
    await ch.close();
  });

  it('keeps the digest of organisation and key in the row, and an empty one without a key', async () => {
    const rs = await ch.query({
      query: `SELECT DISTINCT score_id, org_id, request_digest FROM ${DB}.scores ORDER BY score_id`,
      format: 'JSONEachRow',
    });
    const stored = await rs.json<{ score_id: string; org_id: string; request_digest: string }>();
    expect(stored.map((r) => r.request_digest)).toEqual([
      requestDigest(ORG, KEY),
      requestDigest(ORG, KEY),
      '',
      '',
      requestDigest(OTHER, KEY),
    ]);
    expect(requestDigest(ORG, KEY)).toMatch(/^[0-9a-f]{64}$/);
    expect(requestDigest(ORG, KEY)).not.toBe(requestDigest(OTHER, KEY));
  });

  it('counts the retried request once, as the score its retry got; keyless scores each; other org apart', async () => {
    const { answered, keyless, other } = scenario;
    const expected = [answered.score_id, ...keyless.map((r) => r.score_id)].sort();
    // The view: the rule over the whole table.
    expect(await ids(`SELECT score_id FROM ${DB}.scores_answered WHERE org_id = '${ORG}'`)).toEqual(expected);
    expect(await ids(`SELECT score_id FROM ${DB}.scores_answered WHERE org_id = '${OTHER}'`)).toEqual([
      other.score_id,
    ]);
    // The condition docs/data.md's queries carry beside their own filter.
    const filter = `org_id = '${ORG}' AND scored_at >= toDateTime('${day} 00:00:00')`;
    expect(
      await ids(
        `SELECT score_id FROM ${DB}.scores FINAL WHERE ${filter} ${answeredOnly(`${DB}.scores`, filter)}`,
      ),
    ).toEqual(expected);
    // Without the rule the cut-off score would count: the test can fail.
    expect(await ids(`SELECT score_id FROM ${DB}.scores FINAL WHERE ${filter}`)).toHaveLength(4);
  });

  it('a backtest counts the retried request once', async () => {
    const groups = await readDay(ch, DB, day, ORG);
    expect(groups.reduce((n, g) => n + g.scores, 0)).toBe(3);
    const all = await readDay(ch, DB, day);
    expect(all.reduce((n, g) => n + g.scores, 0)).toBe(4);
  });

  it('a day leaves out a score its retry superseded the next day', async () => {
    const late = Date.parse('2026-11-03T23:59:50Z');
    const digest = requestDigest(ORG, 'late-key');
    const cutOff = auditRecord(ORG, scoreIdAt(late, 6), late, { request_digest: digest });
    const retry = auditRecord(ORG, scoreIdAt(late + 40_000, 7), late + 40_000, { request_digest: digest });
    await insertSlice(
      ch,
      { table: `${DB}.scores` },
      [cutOff, retry].map((record) => ({ row: toRow(record), record })),
    );
    const count = async (d: string) => (await readDay(ch, DB, d, ORG)).reduce((n, g) => n + g.scores, 0);
    expect([await count('2026-11-03'), await count('2026-11-04')]).toEqual([0, 1]);
  });
});

describe('the audit record of a score sent with an Idempotency-Key', () => {
  const cache = explainRedis();
  let api: InProcessNode;

  beforeAll(async () => {
    api = await startNode();
  });
  afterAll(async () => {
    await api?.stop();
    cache.disconnect();
  });

  it('carries the digest of organisation and key, never the key; a request without one has none', async () => {
    const a = await orgWithKey('assess');
    const b = await orgWithKey('assess');
    const key = `secret-ish-${randomBytes(6).toString('hex')}`;
    const score = async (apiKey: string, idempotencyKey?: string) => {
      const res = await fetch(`${api.url}/v1/score`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${apiKey}`,
          'content-type': 'application/json',
          ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}),
        },
        body: JSON.stringify({ subject: { phone_number: '+447911123456' } }),
      });
      expect(res.status).toBe(200);
      return ((await res.json()) as { score_id: string }).score_id;
    };
    const record = async (orgId: string, scoreId: string) => {
      const raw = await waitFor(
        'the record',
        async () => (await cache.get(explainKey(orgId, scoreId))) ?? undefined,
      );
      expect(raw).not.toContain(key);
      return AuditRecord.parse(JSON.parse(raw));
    };
    const keyed = await record(a.orgId, await score(a.apiKey, key));
    expect(keyed.request_digest).toBe(requestDigest(a.orgId, key));
    const otherOrg = await record(b.orgId, await score(b.apiKey, key));
    expect(otherOrg.request_digest).toBe(requestDigest(b.orgId, key));
    expect(otherOrg.request_digest).not.toBe(keyed.request_digest);
    expect((await record(a.orgId, await score(a.apiKey))).request_digest).toBeUndefined();
  });
});
