/**
 * Loads the reference population (loadtest/subjects.ts, 20 000 subjects) as the retained scores
 * and outcomes of 40 organisations into a ClickHouse database of its own (default
 * `frs_backtest_velocity`), so a backtest of the candidate that scores network velocity has
 * multi-organisation traffic to replay (loadtest/backtest-reference.ts loads one organisation's,
 * where velocity never shows):
 *
 *   node loadtest/backtest-velocity.ts [--count 20000] [--database frs_backtest_velocity]
 *   CLICKHOUSE_DATABASE=frs_backtest_velocity npm run backtest -- --candidate 2026.12.4 --out DIR
 *
 * The subjects are the population's real draw; only who scores them, and when, is simulated
 * (loadtest/backtest-velocity-plan.ts gives the shares and why): over the 24 hours up to now,
 * honest subjects scored by one organisation (3 % by two), 1 % of subjects worked by rings through
 * 5 to 25 organisations within an hour (reported fraud), 0.25 % of subjects being shared
 * addresses (carrier NAT or relay) scored by 25 to 40 organisations (reported `not_fraud`), and
 * 10 % of honest scores reported `not_fraud`. Each score is made under the default version with
 * velocity's table as a node would have held it then, rebuilt every `--rebuild-s` simulated
 * seconds (loadtest/backtest-velocity-traffic.ts).
 *
 * Prints, per pattern, the scores, the velocity codes they carry and how the candidate moves them.
 */
import { parseArgs } from 'node:util';
import { migrate } from '../infra/clickhouse/migrate.ts';
import { VELOCITY_VERSION } from '../shared/capabilities/network-velocity/index.ts';
import { createClickHouse } from '../shared/clients/clickhouse.ts';
import { quoteIdent } from '../shared/clients/sql.ts';
import { loadConfig } from '../shared/config.ts';
import { DEFAULT_VERSION, findVersion } from '../shared/scoring/versions.ts';
import { VELOCITY_TRAFFIC } from './backtest-velocity-plan.ts';
import { summarise, velocityTraffic } from './backtest-velocity-traffic.ts';

const { values } = parseArgs({
  options: {
    count: { type: 'string', default: '20000' },
    database: { type: 'string', default: 'frs_backtest_velocity' },
    'rebuild-s': { type: 'string', default: '300' },
    seed: { type: 'string', default: '20261210' },
  },
});
const count = Number(values.count);
const rebuildS = Number(values['rebuild-s']);
const seed = Number(values.seed);
if (!Number.isInteger(count) || count < 100 || count > 1_000_000) {
  console.error('--count: an integer from 100 to 1000000');
  process.exit(2);
}
if (!Number.isInteger(rebuildS) || rebuildS < 1 || rebuildS > 3600) {
  console.error('--rebuild-s: an integer from 1 to 3600');
  process.exit(2);
}
if (!Number.isInteger(seed)) {
  console.error('--seed: an integer');
  process.exit(2);
}
const db = quoteIdent(values.database);
const cfg = loadConfig();
const ch = createClickHouse(cfg.CLICKHOUSE_URL, { requestTimeoutMs: 600_000 });
try {
  const endMs = Date.now() - 60_000;
  const run = velocityTraffic({
    count,
    version: DEFAULT_VERSION,
    candidate: findVersion(VELOCITY_VERSION)!,
    endMs,
    rebuildMs: rebuildS * 1000,
    seed,
  });
  await ch.command({ query: `DROP DATABASE IF EXISTS ${db}` });
  await migrate(ch, db, () => undefined);
  for (let i = 0; i < run.rows.length; i += 5000)
    await ch.insert({ table: `${db}.scores`, values: run.rows.slice(i, i + 5000), format: 'JSONEachRow' });
  await ch.insert({ table: `${db}.outcomes`, values: run.outcomes, format: 'JSONEachRow' });
  console.log(
    JSON.stringify({
      database: db,
      subjects: count,
      scores: run.rows.length,
      outcomes: run.outcomes.length,
      version: DEFAULT_VERSION.id,
      candidate: VELOCITY_VERSION,
      from: new Date(endMs - VELOCITY_TRAFFIC.spanHours * 3_600_000).toISOString(),
      to: new Date(endMs).toISOString(),
      rebuild_s: rebuildS,
      patterns: summarise(run.visits),
    }),
  );
} finally {
  await ch.close();
}
