/**
 * How fast is a backtest, and in how much memory? `npm run bench:backtest` loads `--rows` retained
 * scores into a private database on the ClickHouse at CLICKHOUSE_URL the way views-bench.ts does
 * (`INSERT ... SELECT FROM system.numbers`, no row through Node): each row is one of `--templates`
 * real audit rows of the reference population (loadtest/backtest-rows.ts, scored as the API
 * scores) under a score id of its own, `--orgs` organisations over `--days` days up to now; one
 * score in `--dup-every` is re-delivered as a second identical row (merges stopped, so it stays),
 * and one in `--outcome-every` gets an outcome. Then it times `runBacktest` (what `npm run
 * backtest` runs) of the candidate against the default over the whole window, checks it counted
 * every distinct score once and replayed every one exactly under its own version, and prints
 * scores/s and the Node process's peak resident memory.
 *
 *   node loadtest/backtest-bench.ts [--rows 1000000] [--days 1] [--orgs 20] [--templates 5000]
 *                                   [--dup-every 500] [--outcome-every 100] [--reuse] [--keep]
 *
 * Without --keep the database is dropped at the end.
 */
import { parseArgs } from 'node:util';
import { migrate } from '../infra/clickhouse/migrate.ts';
import { runBacktest } from '../shared/backtest/run.ts';
import { createClickHouse } from '../shared/clients/clickhouse.ts';
import { loadConfig } from '../shared/config.ts';
import { DEFAULT_VERSION, findVersion } from '../shared/scoring/versions.ts';
import { referenceRows } from './backtest-rows.ts';

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '1000000' },
    days: { type: 'string', default: '1' },
    orgs: { type: 'string', default: '20' },
    templates: { type: 'string', default: '5000' },
    'dup-every': { type: 'string', default: '500' },
    'outcome-every': { type: 'string', default: '100' },
    candidate: { type: 'string', default: '2026.12.1' },
    reuse: { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
  },
});
const [ROWS, DAYS, ORGS, TEMPLATES, DUP_EVERY, OUTCOME_EVERY] = [
  values.rows,
  values.days,
  values.orgs,
  values.templates,
  values['dup-every'],
  values['outcome-every'],
].map(Number) as [number, number, number, number, number, number];
if (![ROWS, DAYS, ORGS, TEMPLATES, DUP_EVERY, OUTCOME_EVERY].every((n) => Number.isInteger(n) && n > 0)) {
  console.error('--rows, --days, --orgs, --templates, --dup-every, --outcome-every: positive integers');
  process.exit(2);
}
const candidate = findVersion(values.candidate);
if (!candidate) {
  console.error(`unknown score version ${values.candidate}`);
  process.exit(2);
}

const DB = 'frs_backtest_bench';
const cfg = loadConfig();
const ch = createClickHouse(cfg.CLICKHOUSE_URL, { requestTimeoutMs: 3_600_000 });
const log = (m: string) => console.error(`[backtest-bench] ${m}`);
const day = (s: number) => new Date(s * 1000).toISOString().slice(0, 10);

/** Template columns: what a row takes from its template; the rest is made per row below. */
const TEMPLATE_COLUMNS = [
  'score_version',
  'score',
  'band',
  'recommended_action',
  'coverage',
  'primary_risk_factor',
  'degraded_sources',
  'has_phone',
  'has_ip',
  'request_json',
  'response_json',
  'evidence_json',
  'raw_risk',
  'fired_components',
  'context_effect',
];

/** Row `number`: template number % TEMPLATES, a time `number` steps back from `now` over DAYS days. */
function generator(now: number, where = '1'): string {
  const span = DAYS * 86_400 - 120;
  return `SELECT
    concat('sc_', lower(hex(MD5(toString(number))))) AS score_id,
    concat('org_bench', toString(number % ${ORGS})) AS org_id,
    toDateTime(${now} - 60 - intDiv(number * ${span}, ${ROWS})) AS scored_at,
    toUInt64(${now} - 60 - intDiv(number * ${span}, ${ROWS})) * 1000 AS scored_at_ms,
    'bureau' AS tier,
    ${TEMPLATE_COLUMNS.join(', ')},
    toUInt32(1) AS latency_ms, 'bench' AS node_id, '' AS client_reference, toUInt16(1) AS record_version
  FROM (SELECT number, toUInt32(number % ${TEMPLATES}) AS idx
        FROM (SELECT number FROM system.numbers LIMIT ${ROWS}) WHERE ${where}) AS n
  ANY LEFT JOIN ${DB}.templates USING idx`;
}
const COLUMNS = `score_id, org_id, scored_at, scored_at_ms, tier, ${TEMPLATE_COLUMNS.join(', ')}, latency_ms, node_id, client_reference, record_version`;

async function load(now: number): Promise<void> {
  await ch.command({ query: `DROP DATABASE IF EXISTS ${DB}` });
  await migrate(ch, DB, () => undefined);
  const rows = referenceRows(TEMPLATES, DEFAULT_VERSION, 'org_bench', () => now * 1000);
  await ch.command({
    query: `CREATE TABLE ${DB}.templates (idx UInt32, score_version String, score UInt8, band String,
      recommended_action String, coverage String, primary_risk_factor String, degraded_sources Array(String),
      has_phone UInt8, has_ip UInt8, request_json String, response_json String, evidence_json String,
      raw_risk Float64, fired_components Array(String), context_effect String) ENGINE = Memory`,
  });
  await ch.insert({
    table: `${DB}.templates`,
    values: rows.map((r, idx) => ({
      idx,
      ...Object.fromEntries(TEMPLATE_COLUMNS.map((c) => [c, r[c as keyof typeof r]])),
    })),
    format: 'JSONEachRow',
  });
  await ch.command({ query: `CREATE TABLE ${DB}.load_meta (now UInt32) ENGINE = TinyLog` });
  await ch.insert({ table: `${DB}.load_meta`, values: [{ now }], format: 'JSONEachRow' });
  const t0 = performance.now();
  await ch.command({ query: `INSERT INTO ${DB}.scores (${COLUMNS}) ${generator(now)}` });
  log(
    `loaded ${ROWS} scores from ${TEMPLATES} templates in ${((performance.now() - t0) / 1000).toFixed(0)} s`,
  );
  await ch.command({ query: `SYSTEM STOP MERGES ${DB}.scores` });
  await ch.command({
    query: `INSERT INTO ${DB}.scores (${COLUMNS}) ${generator(now, `number % ${DUP_EVERY} = 0`)}`,
  });
  // One outcome in OUTCOME_EVERY scores, an hour after it, labels in turn.
  await ch.command({
    query: `INSERT INTO ${DB}.outcomes (outcome_id, org_id, received_at, received_at_ms, occurred_at, outcome, score_id)
      SELECT concat('oc_', lower(hex(MD5(concat('o', toString(number)))))),
             concat('org_bench', toString(number % ${ORGS})),
             toDateTime(${now} - 60 - intDiv(number * ${DAYS * 86_400 - 120}, ${ROWS}) + 3600),
             toUInt64(${now} - 60 - intDiv(number * ${DAYS * 86_400 - 120}, ${ROWS}) + 3600) * 1000,
             toDateTime(${now} - 60 - intDiv(number * ${DAYS * 86_400 - 120}, ${ROWS})),
             ['confirmed_fraud', 'not_fraud', 'chargeback', 'suspected_fraud', 'not_fraud'][1 + intDiv(number, ${OUTCOME_EVERY}) % 5],
             concat('sc_', lower(hex(MD5(toString(number)))))
      FROM (SELECT number FROM system.numbers LIMIT ${ROWS}) WHERE number % ${OUTCOME_EVERY} = 0`,
  });
}

async function value(query: string): Promise<number> {
  const rs = await ch.query({ query, format: 'JSONEachRow' });
  const [row] = await rs.json<Record<string, string | number>>();
  return Number(Object.values(row ?? { v: NaN })[0]);
}

async function main(): Promise<void> {
  const now = values.reuse
    ? await value(`SELECT any(now) FROM ${DB}.load_meta`)
    : Math.floor(Date.now() / 1000);
  if (!values.reuse) await load(now);
  const raw = await value(`SELECT count() FROM ${DB}.scores`);
  const bytes = await value(
    `SELECT sum(bytes) FROM system.parts WHERE database = '${DB}' AND table = 'scores' AND active`,
  );
  log(`${raw} rows (${raw - ROWS} unmerged re-deliveries), ${(bytes / 2 ** 20).toFixed(0)} MiB on disk`);
  const window = { from: day(now - DAYS * 86_400), to: day(now + 86_400) };
  const rssBefore = process.memoryUsage.rss();
  const t0 = performance.now();
  const f = await runBacktest({
    ch,
    database: DB,
    candidate: candidate!,
    baseline: DEFAULT_VERSION,
    window,
    progress: (p) => log(`${p.day} ${p.done}/${p.days} days, ${p.scores} scores, ${p.elapsedS.toFixed(1)} s`),
  });
  const seconds = (performance.now() - t0) / 1000;
  const peakMiB = process.resourceUsage().maxRSS / 1024;
  if (f.scores !== ROWS) throw new Error(`counted ${f.scores} scores, ${ROWS} distinct were loaded`);
  if (f.reproduced !== f.scores) throw new Error(`${f.scores - f.reproduced} scores did not reproduce`);
  const version = await value(`SELECT toUInt32(splitByChar('.', version())[1])`);
  console.log(
    [
      `ClickHouse ${version}.x at ${cfg.CLICKHOUSE_URL}: ${ROWS} distinct scores (${raw} rows with re-deliveries), ${DAYS} day(s), ${(bytes / 2 ** 20).toFixed(0)} MiB`,
      `backtest ${candidate!.id} against ${DEFAULT_VERSION.id}: ${seconds.toFixed(1)} s, ${Math.round(ROWS / seconds)} scores/s, ` +
        `${f.groups} signature groups, every score counted once and reproduced exactly`,
      `Node peak RSS ${peakMiB.toFixed(0)} MiB (${(rssBefore / 2 ** 20).toFixed(0)} MiB before the backtest)`,
    ].join('\n'),
  );
}

try {
  await main();
} finally {
  await ch.command({ query: `SYSTEM START MERGES ${DB}.scores` }).catch(() => undefined);
  if (!values.keep) await ch.command({ query: `DROP DATABASE IF EXISTS ${DB}` });
  await ch.close();
}
