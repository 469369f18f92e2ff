import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { createClient } from '@clickhouse/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../infra/clickhouse/migrate.ts';
import { cfg, clickhouse } from '../helpers/fixtures.ts';

const run = promisify(execFile);
const DB = 'frs_docs_test';
const ORG = 'org_00000000000000a1';
const DOC_ID = 'sc_01a1f8704f59712e8cb15a4fff010e8d';

/** The ```sql blocks of docs/data.md's "Ready queries" section, in order. */
function readyQueries(): string[] {
  const doc = readFileSync('docs/data.md', 'utf8');
  const section = doc.slice(doc.indexOf('## Ready queries'));
  return [...section.matchAll(/```sql\n([\s\S]*?)```/g)].map((m) => m[1]!.trim());
}

describe('docs/data.md ready queries', () => {
  const admin = clickhouse();
  const ch = createClient({
    url: cfg.CLICKHOUSE_URL,
    database: DB,
    compression: { request: false, response: false },
  });

  beforeAll(async () => {
    await admin.command({ query: `DROP DATABASE IF EXISTS ${DB}` });
    await migrate(admin, DB, () => undefined);
    const now = Math.floor(Date.now() / 1000);
    const row = (i: number, extra: Record<string, unknown>) => ({
      score_id: `sc_${String(i).padStart(32, '0')}`,
      org_id: ORG,
      scored_at: now - i,
      scored_at_ms: (now - i) * 1000,
      tier: 'assess',
      score_version: '2026.11.0',
      score: i * 9,
      band: ['minimal', 'low', 'medium', 'high', 'critical'][i % 5],
      recommended_action: 'watch',
      coverage: 'partial',
      has_phone: 1,
      has_ip: i % 2,
      latency_ms: 2 + i,
      request_json: JSON.stringify({
        subject: { phone_number: '+447911123456' },
        context: { collection_point: { moment: 'signup' } },
        options: { explain: i % 2 === 0 },
      }),
      ...extra,
    });
    const rows = Array.from({ length: 10 }, (_, i) =>
      row(i + 1, {
        primary_risk_factor: i % 3 ? 'NDC_RANGE_HIGH_RISK' : '',
        degraded_sources: i % 4 ? [] : ['ip_anonymiser'],
        raw_risk: i * 5,
        fired_components: i % 3 ? ['NDC_RANGE_ELEVATED'] : [],
        // Half the rows were scored with a silent challenger beside the default.
        challenger_version: i % 2 ? '2026.12.1' : '',
        challenger_score: i % 2 ? i * 8 : null,
        challenger_band: i % 2 ? ['minimal', 'low', 'medium', 'high', 'critical'][(i + 1) % 5] : '',
      }),
    );
    rows.push(row(0, { score_id: DOC_ID, scored_at: Math.floor(parseInt(DOC_ID.slice(3, 15), 16) / 1000) }));
    // A re-delivered record: the views and FINAL queries must not count it twice.
    rows.push(rows[0]!);
    await admin.insert({ table: `${DB}.scores`, values: rows, format: 'JSONEachRow' });
  });

  afterAll(async () => {
    await ch.close();
    await admin.command({ query: `DROP DATABASE IF EXISTS ${DB}` });
    await admin.close();
  });

  it('has a dozen or more, and each runs as written and returns rows', async () => {
    const queries = readyQueries();
    expect(queries.length).toBeGreaterThanOrEqual(12);
    for (const query of queries) {
      const rs = await ch.query({ query, format: 'JSONEachRow' });
      expect((await rs.json()).length, query).toBeGreaterThan(0);
    }
  });

  it('counts a re-delivered record once in the daily views', async () => {
    const rs = await ch.query({
      query: `SELECT sum(scores) AS n FROM scores_daily WHERE org_id = '${ORG}'`,
      format: 'JSONEachRow',
    });
    expect(Number((await rs.json<{ n: string }>())[0]!.n)).toBe(11);
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
    expect(stdout.trim()).toBe('11');
  });
});
