/**
 * Loads the population the reference bench sends (loadtest/subjects.ts, 20 000 subjects) as
 * retained scores into a ClickHouse database of its own (default `frs_backtest_reference`), scored
 * in-process as an API node scores them under the default version (loadtest/backtest-rows.ts),
 * one a second up to now, so `npm run backtest` can replay them:
 *
 *   node loadtest/backtest-reference.ts [--count 20000] [--database frs_backtest_reference]
 *   CLICKHOUSE_DATABASE=frs_backtest_reference npm run backtest -- --candidate 2026.12.1 --out DIR
 *
 * No outcomes: nobody reported any on this population, so the report's outcome figures are empty.
 * One organisation scores every subject, so network velocity never shows here: a candidate that
 * scores it is backtested on the same subjects across organisations by loadtest/backtest-velocity.ts.
 */
import { parseArgs } from 'node:util';
import { migrate } from '../infra/clickhouse/migrate.ts';
import { createClickHouse } from '../shared/clients/clickhouse.ts';
import { quoteIdent } from '../shared/clients/sql.ts';
import { loadConfig } from '../shared/config.ts';
import { DEFAULT_VERSION } from '../shared/scoring/versions.ts';
import { referenceRows } from './backtest-rows.ts';

const { values } = parseArgs({
  options: {
    count: { type: 'string', default: '20000' },
    database: { type: 'string', default: 'frs_backtest_reference' },
  },
});
const count = Number(values.count);
if (!Number.isInteger(count) || count < 1 || count > 1_000_000) {
  console.error('--count: an integer from 1 to 1000000');
  process.exit(2);
}
const db = quoteIdent(values.database);
const cfg = loadConfig();
const ch = createClickHouse(cfg.CLICKHOUSE_URL, { requestTimeoutMs: 600_000 });
try {
  await ch.command({ query: `DROP DATABASE IF EXISTS ${db}` });
  await migrate(ch, db, () => undefined);
  const now = Date.now() - 60_000;
  const rows = referenceRows(count, DEFAULT_VERSION, 'org_reference', (i) => now - (count - i) * 1000);
  for (let i = 0; i < rows.length; i += 5000)
    await ch.insert({ table: `${db}.scores`, values: rows.slice(i, i + 5000), format: 'JSONEachRow' });
  const first = new Date(now - count * 1000).toISOString();
  console.log(
    JSON.stringify({
      database: db,
      scores: rows.length,
      version: DEFAULT_VERSION.id,
      from: first,
      to: new Date(now).toISOString(),
    }),
  );
} finally {
  await ch.close();
}
