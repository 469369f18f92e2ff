import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createClient } from '@clickhouse/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../infra/clickhouse/migrate.ts';
import {
  DOC_ANSWERED,
  DOC_DISTINCT_SCORES,
  DOC_ORG,
  docScoreId,
  docsQueries as docQueriesFor,
  docsSeedRows,
} from '../../infra/harness/docs-seed.ts';
import { SUPERSEDED_SELECT } from '../../shared/clickhouse/answered.ts';
import { cfg, clickhouse } from '../../infra/harness/fixtures.ts';

const run = promisify(execFile);
const DB = 'frs_docs_test';
// One time for the seed and the example score id the queries look up.
const NOW = Math.floor(Date.now() / 1000);
const docsQueries = (): string[] => docQueriesFor(docScoreId(NOW));

describe('docs/data.md queries', () => {
  const admin = clickhouse();
  const ch = createClient({
    url: cfg.CLICKHOUSE_URL,
    database: DB,
    compression: { request: false, response: false },
  });

  beforeAll(async () => {
    await admin.command({ query: `DROP DATABASE IF EXISTS ${DB}` });
    await migrate(admin, DB, () => undefined);
    await admin.insert({ table: `${DB}.scores`, values: docsSeedRows(NOW), format: 'JSONEachRow' });
  });

  afterAll(async () => {
    await ch.close();
    await admin.command({ query: `DROP DATABASE IF EXISTS ${DB}` });
    await admin.close();
  });

  it('has a dozen or more, and each runs as written on 18.16 and returns rows', async () => {
    const queries = docsQueries();
    expect(queries.length).toBeGreaterThanOrEqual(12);
    for (const query of queries) {
      const rs = await ch.query({ query, format: 'JSONEachRow' });
      expect((await rs.json()).length, query).toBeGreaterThan(0);
    }
  });

  it('counts a re-delivered record and a retried request once in every per-organisation daily summary', async () => {
    const summaries = docsQueries().filter(
      (q) => q.includes(`org_id = '${DOC_ORG}'`) && /\bscores\b,?\s/.test(q),
    );
    const daily = summaries.filter((q) => /AS day\b/.test(q) && /FROM scores FINAL/.test(q));
    expect(daily.length).toBeGreaterThanOrEqual(3);
    // Summaries of a subset (risk factors, degraded sources, scores with a challenger) count less.
    for (const q of daily.filter(
      (q) =>
        !q.includes('arrayJoin(degraded_sources)') &&
        !q.includes("primary_risk_factor != ''") &&
        !q.includes("challenger_version != ''"),
    )) {
      const rs = await ch.query({ query: `SELECT sum(scores) AS n FROM (${q})`, format: 'JSONEachRow' });
      expect(Number((await rs.json<{ n: string }>())[0]!.n), q).toBe(DOC_ANSWERED);
    }
  });

  it('applies the rule of "One row per answer" wherever it counts scores', () => {
    // Every read of `scores FINAL` but the lookup of one score by its id.
    const counting = docsQueries().filter((q) => /FROM scores FINAL/.test(q) && !/score_id = 'sc_/.test(q));
    expect(counting.length).toBeGreaterThanOrEqual(12);
    for (const q of counting) {
      expect(q, q).toContain(`AND score_id GLOBAL NOT IN (\n`);
      expect(q, q).toContain(SUPERSEDED_SELECT);
      expect(q, q).toMatch(/AND request_digest != ''\s+GROUP BY org_id, request_digest\)/);
    }
  });

  it('filters on the sort key where it reads scores, never aggregating the whole table first', () => {
    for (const q of docsQueries()) {
      const reads = [...q.matchAll(/\bFROM\s+([a-z_.]+)(\s+FINAL)?\s+(\w+)?([^]*)/g)];
      for (const [, table, , next, rest] of reads) {
        if (table === 'system.parts') continue;
        expect(table, q).toBe('scores');
        // The WHERE right after the table, on the leading sort key columns.
        expect(next, q).toBe('WHERE');
        expect(rest!.split(/\bGROUP BY|\bORDER BY|\)/)[0], q).toMatch(
          /\b(org_id = |scored_at >= |scored_at = )/,
        );
      }
    }
  });

  it('connects with clickhouse-client as the doc shows', async () => {
    const port = process.env.FRS_CLICKHOUSE_TCP_PORT ?? '9000';
    const { stdout } = await run('clickhouse-client', [
      '--port',
      port,
      '--database',
      DB,
      '--query',
      'SELECT count() FROM scores FINAL',
    ]);
    expect(stdout.trim()).toBe(String(DOC_DISTINCT_SCORES));
  });
});
