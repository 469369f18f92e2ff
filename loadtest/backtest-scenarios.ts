/**
 * Loads a scenario set (shared/backtest/scenarios.ts) as retained scores and reported outcomes
 * into a ClickHouse database of its own (default `frs_scenario_<set>`, made again each run), as
 * the audit sink writes them, one score a second up to now, so `npm run backtest` can replay it:
 *
 *   node loadtest/backtest-scenarios.ts --set phone-takeover [--database frs_scenario_phone_takeover]
 *   CLICKHOUSE_DATABASE=frs_scenario_phone_takeover npm run backtest -- --candidate 2026.12.4 --out DIR
 *
 * The scores are made under the default version as released, by the organisation `org_scenario`.
 */
import { parseArgs } from 'node:util';
import { migrate } from '../infra/clickhouse/migrate.ts';
import { toRow } from '../services/audit-sink/sink.ts';
import { AuditRecordEnvelope } from '../shared/audit/record.ts';
import { SCENARIO_SETS, scenarioRecords } from '../shared/backtest/scenarios.ts';
import { createClickHouse } from '../shared/clients/clickhouse.ts';
import { quoteIdent } from '../shared/clients/sql.ts';
import { loadConfig } from '../shared/config.ts';
import { toOutcomeRow } from '../shared/outcomes/record.ts';
import { DEFAULT_VERSION } from '../shared/scoring/versions.ts';

const { values } = parseArgs({ options: { set: { type: 'string' }, database: { type: 'string' } } });
const set = SCENARIO_SETS.get(values.set ?? '');
if (!set) {
  console.error(`--set: one of ${[...SCENARIO_SETS.keys()].join(', ')}`);
  process.exit(2);
}
const db = quoteIdent(values.database ?? `frs_scenario_${set.name.replaceAll('-', '_')}`);
const ch = createClickHouse(loadConfig().CLICKHOUSE_URL, { requestTimeoutMs: 600_000 });
try {
  await ch.command({ query: `DROP DATABASE IF EXISTS ${db}` });
  await migrate(ch, db, () => undefined);
  const count = set.cases.reduce((n, c) => n + c.count, 0);
  const start = Date.now() - 120_000 - count * 1000;
  const traffic = scenarioRecords(set, DEFAULT_VERSION, 'org_scenario', start);
  const now = Math.floor(Date.now() / 1000);
  const scores = traffic.scores.map((json) => ({
    ...toRow(AuditRecordEnvelope.parse(JSON.parse(json))),
    inserted_at: now,
  }));
  const outcomes = traffic.outcomes.map((o) => ({ ...toOutcomeRow(o), inserted_at: now }));
  for (let i = 0; i < scores.length; i += 5000)
    await ch.insert({ table: `${db}.scores`, values: scores.slice(i, i + 5000), format: 'JSONEachRow' });
  await ch.insert({ table: `${db}.outcomes`, values: outcomes, format: 'JSONEachRow' });
  console.log(
    JSON.stringify({
      database: db,
      set: set.name,
      version: DEFAULT_VERSION.id,
      scores: scores.length,
      outcomes: outcomes.length,
      cases: set.cases.map((c) => ({ name: c.name, scores: c.count, moment: c.moment, outcome: c.outcome })),
    }),
  );
} finally {
  await ch.close();
}
