/**
 * Do the data-team queries of docs/data.md scale? Loads `--rows` (20 million) scores into a
 * private database on the ClickHouse at CLICKHOUSE_URL (the 18.16 of the dev machines) with
 * `INSERT ... SELECT FROM system.numbers`: `--orgs` organisations (50, among them the
 * organisation the doc's queries name) over `--days` days (60) up to now. Then it re-delivers one
 * record in `--dup-every` (500) as a second, identical row, with merges stopped so the duplicates
 * stay unmerged, and times every sql block of docs/data.md exactly as written (`--runs` runs
 * each, after one warm-up). Same run, as the baseline: the unfiltered daily views that migration
 * 006 dropped, recreated from migration 002, over the same rows.
 *
 * Exactness: every query must answer exactly what it answered before the duplicates were
 * inserted, but the doc's raw-row and storage queries (columns `row_count`, `raw_rows`, or reading
 * `system.parts`), which report rows, not scores. The generator leaves the last 10 minutes of every hour before the load empty,
 * so "last N hours/days" windows that slide while the bench runs do not change any answer. A
 * mismatch or an error fails the bench and no table is printed.
 *
 *   node loadtest/views-bench.ts [--rows 20000000] [--orgs 50] [--days 60] [--dup-every 500]
 *                                [--runs 3] [--reuse] [--keep]
 *
 * --reuse times the data of a previous --keep run without loading again. Without --keep the
 * database is dropped at the end (about 1 GB on disk at 20 million rows).
 */
import { createClient } from '@clickhouse/client';
import { parseArgs } from 'node:util';
import { loadMigrations, migrate } from '../infra/clickhouse/migrate.ts';
import { createClickHouse } from '../shared/clients/clickhouse.ts';
import { loadConfig } from '../shared/config.ts';
import { docsQueries, docsQueryTitles } from '../infra/harness/docs-seed.ts';

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '20000000' },
    orgs: { type: 'string', default: '50' },
    days: { type: 'string', default: '60' },
    'dup-every': { type: 'string', default: '500' },
    runs: { type: 'string', default: '3' },
    reuse: { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
  },
});
const ROWS = Number(values.rows);
const ORGS = Number(values.orgs);
const DAYS = Number(values.days);
const DUP_EVERY = Number(values['dup-every']);
const RUNS = Number(values.runs);
if (![ROWS, ORGS, DAYS, DUP_EVERY, RUNS].every((n) => Number.isInteger(n) && n > 0) || ORGS > 95) {
  console.error('--rows, --orgs (<= 95), --days, --dup-every, --runs: positive integers');
  process.exit(2);
}

const DB = 'frs_bench';
const TARGET_S = 0.5;
const cfg = loadConfig();
const admin = createClickHouse(cfg.CLICKHOUSE_URL, { requestTimeoutMs: 3_600_000 });
const ch = createClient({
  url: cfg.CLICKHOUSE_URL,
  database: DB,
  request_timeout: 600_000,
  compression: { request: false, response: false },
});
const log = (m: string) => console.error(`[views-bench] ${m}`);

/**
 * Row `number` of the generated table. Seconds before `now` are `hour * 3600 + 1 + sec` with
 * `sec < 3000`: the 600 s before every whole hour back from `now` hold no row, so a window
 * "now() - INTERVAL k HOUR/DAY" moving by less than 10 minutes meets no row.
 */
function generator(now: number): string {
  const slots = DAYS * 24 * 3000;
  const k = `intDiv(number * ${slots}, ${ROWS})`;
  const ago = `(intDiv(${k}, 3000) * 3600 + 1 + ${k} % 3000)`;
  const bands = `['minimal', 'low', 'medium', 'high', 'critical']`;
  return `SELECT
    concat('sc_', lower(hex(MD5(toString(number))))) AS score_id,
    concat('org_00000000000000', lower(hex(toUInt8(161 + number % ${ORGS})))) AS org_id,
    toDateTime(${now} - ${ago}) AS scored_at,
    toUInt64(${now} - ${ago}) * 1000 + number % 1000 AS scored_at_ms,
    ['verify', 'assess', 'bureau'][1 + number % 3] AS tier,
    '2026.11.0' AS score_version,
    toUInt8(number * 7919 % 101) AS score,
    ${bands}[1 + least(intDiv(number * 7919 % 101, 20), 4)] AS band,
    ['allow', 'watch', 'investigate', 'step_up_auth', 'challenge', 'block'][1 + number % 6] AS recommended_action,
    ['strong', 'partial', 'thin'][1 + number % 3] AS coverage,
    if(number % 4 = 0, '', ['NDC_RANGE_HIGH_RISK', 'IP_ANONYMISER', 'CLI_IMPOSSIBLE', 'VELOCITY_HIGH'][1 + number % 7 % 4]) AS primary_risk_factor,
    if(number % 20 = 0, ['ip_anonymiser'], if(number % 53 = 0, ['phone_line_type', 'ip_network_type'], emptyArrayString())) AS degraded_sources,
    toUInt8(number % 5 != 0) AS has_phone,
    toUInt8(number % 2) AS has_ip,
    toUInt32(1 + number % 37 + if(number % 997 = 0, 200, 0)) AS latency_ms,
    concat('n', toString(number % 4)) AS node_id,
    concat('ref-', toString(number)) AS client_reference,
    toUInt16(1) AS record_version,
    concat('{"subject":{"phone_number":"+4479', toString(10000000 + number % 9000000),
      '"},"context":{"collection_point":{"moment":"', ['signup', 'login', 'payment'][1 + number % 3],
      '"}},"options":{"explain":', if(number % 2 = 0, 'true', 'false'), '}}') AS request_json,
    concat('{"score":', toString(number * 7919 % 101), ',"band":"', ${bands}[1 + least(intDiv(number * 7919 % 101, 20), 4)],
      '","degraded_sources":[],"client_reference":"ref-', toString(number), '"}') AS response_json,
    '{"components":[]}' AS evidence_json,
    toDateTime(${now} - ${ago} + 1) AS inserted_at
  FROM system.numbers`;
}

/** The generator's columns by name: migrations may add columns the generator leaves at their default. */
const COLUMNS = [...generator(0).matchAll(/ AS ([a-z_]+),?\n/g)].map((m) => m[1]).join(', ');

async function value(query: string): Promise<number> {
  const rs = await ch.query({ query, format: 'JSONEachRow' });
  const [row] = await rs.json<Record<string, string | number>>();
  return Number(Object.values(row ?? { v: NaN })[0]);
}

async function rowsOf(query: string): Promise<unknown[]> {
  const rs = await ch.query({ query, format: 'JSONEachRow' });
  return rs.json();
}

async function timed(query: string): Promise<{ seconds: number[]; rows: number }> {
  await rowsOf(query); // warm-up: marks and the OS page cache, as on a server in use
  const seconds: number[] = [];
  let rows = 0;
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    rows = (await rowsOf(query)).length;
    seconds.push((performance.now() - t0) / 1000);
  }
  return { seconds: seconds.sort((a, b) => a - b), rows };
}

/** Every query answers in scores, exactly, but those about raw rows and storage, which say so. */
const exact = (q: string) => !/\b(row_count|raw_rows|system\.parts)\b/.test(q);

async function load(): Promise<void> {
  await admin.command({ query: `DROP DATABASE IF EXISTS ${DB}` });
  await migrate(admin, DB, () => undefined);
  const now = Math.floor(Date.now() / 1000);
  await admin.command({ query: `CREATE TABLE ${DB}.load_meta (now UInt32) ENGINE = TinyLog` });
  await admin.insert({ table: `${DB}.load_meta`, values: [{ now }], format: 'JSONEachRow' });
  const t0 = performance.now();
  await admin.command({ query: `INSERT INTO ${DB}.scores (${COLUMNS}) ${generator(now)} LIMIT ${ROWS}` });
  log(`loaded ${ROWS} rows in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
}

interface Timed {
  query: string;
  rows: number;
  seconds: number[];
}

/**
 * Adds re-deliveries (every DUP_EVERY-th row again), merges stopped so they stay duplicate rows
 * while the queries run; returns each exact query's answer from before them.
 */
async function redeliver(queries: string[]): Promise<Map<string, string>> {
  const now = await value(`SELECT any(now) FROM load_meta`);
  await admin.command({ query: `SYSTEM STOP MERGES ${DB}.scores` });
  const before = new Map<string, string>();
  const dupsPresent = (await value(`SELECT count() - uniqExact(score_id) FROM scores`)) > 0;
  if (!dupsPresent) {
    for (const q of queries.filter(exact)) before.set(q, JSON.stringify(await rowsOf(q)));
    await admin.command({
      query: `INSERT INTO ${DB}.scores (${COLUMNS}) ${generator(now)} WHERE number % ${DUP_EVERY} = 0 LIMIT ${Math.ceil(ROWS / DUP_EVERY)}`,
    });
  } else log('re-deliveries already present (--reuse): counts were checked by the run that loaded them');
  return before;
}

/** Rows, distinct scores, parts and bytes of `scores`; refuses a table with nothing to deduplicate. */
async function tableState() {
  const raw = await value(`SELECT count() FROM scores`);
  const distinct = await value(`SELECT uniqExact(score_id) FROM scores`);
  const active = `FROM system.parts WHERE database = '${DB}' AND table = 'scores' AND active`;
  const parts = await value(`SELECT count() ${active}`);
  const bytes = await value(`SELECT sum(bytes) ${active}`);
  log(
    `${raw} rows, ${distinct} distinct scores, ${raw - distinct} unmerged re-deliveries, ${parts} parts, ${(bytes / 2 ** 20).toFixed(0)} MiB`,
  );
  if (raw <= distinct) throw new Error('no unmerged re-delivery: the exactness check would prove nothing');
  return { raw, distinct, parts, bytes };
}

/** Baseline, same rows, same run: the views migration 006 dropped, as the issue measured them. */
async function baselineViews(): Promise<{ titles: Map<string, string>; base: Timed[] }> {
  const m002 = (await loadMigrations(DB)).find((m) => m.version === 2)!;
  for (const s of m002.statements) await admin.command({ query: s.sql });
  const titles = new Map([
    [
      `SELECT day, scores FROM scores_daily WHERE org_id = 'org_00000000000000a1' AND day >= today() - 30 ORDER BY day`,
      'scores_daily, one organisation, last 30 days',
    ],
    [
      `SELECT day, band, scores, share FROM scores_daily_bands WHERE org_id = 'org_00000000000000a1' AND day >= today() - 7 ORDER BY day, band`,
      'scores_daily_bands, one organisation, last 7 days',
    ],
    [
      `SELECT org_id, scores FROM scores_daily WHERE day = today() ORDER BY scores DESC`,
      'scores_daily, today, all organisations',
    ],
  ]);
  const base: Timed[] = [];
  for (const query of titles.keys()) {
    const t0 = performance.now();
    const rows = (await rowsOf(query)).length;
    base.push({ query, rows, seconds: [(performance.now() - t0) / 1000] });
  }
  for (const v of [
    'scores_daily',
    'scores_daily_bands',
    'scores_daily_risk_factors',
    'scores_daily_degraded_sources',
  ])
    await admin.command({ query: `DROP TABLE IF EXISTS ${DB}.${v}` });
  return { titles, base };
}

async function report(
  table: Awaited<ReturnType<typeof tableState>>,
  results: Timed[],
  base: Timed[],
  titles: Map<string, string>,
  exactly: number,
): Promise<void> {
  const { raw, distinct, parts, bytes } = table;
  const short = (q: string) => (titles.get(q) || q.replace(/\s+/g, ' ').slice(0, 72)).replaceAll('`', '');
  const line = (r: Timed) => {
    const median = r.seconds[Math.floor(r.seconds.length / 2)]!;
    const max = r.seconds[r.seconds.length - 1]!;
    return `| ${short(r.query)} | ${r.rows} | ${median.toFixed(3)} | ${max.toFixed(3)} |`;
  };
  const over = results.filter((r) => r.seconds[Math.floor(r.seconds.length / 2)]! >= TARGET_S);
  console.log(
    [
      `ClickHouse ${await value(`SELECT toUInt32(splitByChar('.', version())[1])`)}.x at ${cfg.CLICKHOUSE_URL}: ${raw} rows (${raw - distinct} unmerged re-deliveries), ${ORGS} organisations, ${DAYS} days, ${parts} parts, ${(bytes / 2 ** 20).toFixed(0)} MiB`,
      '',
      `docs/data.md queries as written, ${RUNS} runs after a warm-up (seconds); ${exactly} queries answered exactly as before the re-deliveries:`,
      '',
      '| query | rows | median s | max s |',
      '|---|---|---|---|',
      ...results.map(line),
      '',
      'Baseline, same rows: the dropped daily views of migration 002 (one run each):',
      '',
      '| query | rows | s |',
      '|---|---|---|',
      ...base.map((r) => `| ${short(r.query)} | ${r.rows} | ${r.seconds[0]!.toFixed(3)} |`),
      '',
      over.length === 0
        ? `every query under ${TARGET_S} s`
        : `${over.length} quer(ies) at or over ${TARGET_S} s`,
    ].join('\n'),
  );
}

async function main(): Promise<void> {
  if (!values.reuse) await load();
  const queries = docsQueries();
  const before = await redeliver(queries);
  const table = await tableState();

  const mismatches: string[] = [];
  const results: Timed[] = [];
  for (const query of queries) {
    const r = await timed(query);
    results.push({ query, ...r });
    if (before.has(query) && before.get(query) !== JSON.stringify(await rowsOf(query)))
      mismatches.push(query);
  }
  const { titles: baseline, base } = await baselineViews();
  if (mismatches.length > 0) {
    throw new Error(`answers changed by re-delivered records:\n${mismatches.join('\n---\n')}`);
  }
  const titles = new Map([
    ...queries.map((q, i): [string, string] => [q, docsQueryTitles()[i] ?? '']),
    ...baseline,
  ]);
  const exactly = results.filter((r) => before.has(r.query)).length;
  await report(table, results, base, titles, exactly);
}

try {
  await main();
} finally {
  await admin.command({ query: `SYSTEM START MERGES ${DB}.scores` }).catch(() => undefined);
  if (!values.keep) await admin.command({ query: `DROP DATABASE IF EXISTS ${DB}` });
  await ch.close();
  await admin.close();
}
