/**
 * A batch the sink inserts twice (a retry after a timeout that did reach ClickHouse, or a journal
 * replay re-sending records Kafka already had) is one row per score through the read paths:
 * FINAL counts as docs/data.md reads them, and explain's lookup.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { migrate } from '../../infra/clickhouse/migrate.ts';
import { insertSlice, scoredSubjectRows } from '../../services/audit-sink/sink.ts';
import type { AuditRecordEnvelope } from '../../shared/audit/record.ts';
import { ScoreHistory } from '../../shared/audit/history.ts';
import { sinkSlice } from '../helpers/audit-rows.ts';
import { clickhouse } from '../../infra/harness/fixtures.ts';

const DB = `frs_dedup_${randomBytes(4).toString('hex')}`;
const ORG = 'org_0123456789abcdef';

describe('the sink inserting the same batch twice', () => {
  const ch = clickhouse();
  afterAll(async () => {
    await ch.command({ query: `DROP DATABASE IF EXISTS ${DB}` });
    await ch.close();
  });

  it('reads one row per score_id', async () => {
    await migrate(ch, DB, () => undefined);
    const slice = sinkSlice(ORG, 50, Math.floor(Date.now() / 1000));
    const target = {
      table: `${DB}.scores`,
      derived: {
        table: `${DB}.scored_subjects`,
        rows: scoredSubjectRows,
      },
    };
    await insertSlice(ch, target, slice);
    await insertSlice(ch, target, slice);

    const rs = await ch.query({
      query: `SELECT count() AS n, uniqExact(score_id) AS ids, max(c) AS most FROM
              (SELECT score_id, count() AS c FROM ${DB}.scores FINAL WHERE org_id = '${ORG}' GROUP BY score_id)`,
      format: 'JSONEachRow',
    });
    expect(
      (await rs.json<Record<string, string | number>>()).map((r) => Object.values(r).map(Number)),
    ).toEqual([[50, 50, 1]]);
    const first = slice[0]!.record as AuditRecordEnvelope;
    expect(await new ScoreHistory(ch, DB).find(ORG, first.score_id)).toMatchObject({
      score_id: first.score_id,
    });
  });
});
