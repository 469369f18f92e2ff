/**
 * Backtest runs in ClickHouse (`backtests`, migration 008): a run's figures as rows, the latest run
 * of a candidate against a baseline (what `admin version promote` reads), and the record of every
 * promotion (`version_promotions`).
 */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { ClickHouseClient } from '../clients/clickhouse.ts';
import { quote, quoteIdent } from '../clients/sql.ts';
import { readRows } from '../clickhouse/rows.ts';
import { BANDS, CAPS, ROLES, type Figures } from './figures.ts';

export const RUN_ID = /^bt_[0-9a-f]{32}$/;

/** `bt_` + a UUIDv7's 32 hex digits, so run ids sort by time. */
export function newRunId(nowMs = Date.now()): string {
  const b = randomBytes(16);
  b.writeUIntBE(nowMs, 0, 6);
  b[6] = 0x70 | (b[6]! & 0x0f);
  b[8] = 0x80 | (b[8]! & 0x3f);
  return `bt_${b.toString('hex')}`;
}

export interface RunMeta {
  run_id: string;
  ran_at: Date;
  candidate: string;
  baseline: string;
  from: string;
  to: string;
  org_id: string;
}

export interface FigureRow {
  figure: string;
  version: string;
  band: string;
  to_band: string;
  value: number;
}

const n = (v: number | null) => (v === null ? Number.NaN : v);

/** Every figure of a run as rows of `backtests`. */
export function figureRows(f: Figures): FigureRow[] {
  const rows: FigureRow[] = [];
  const row = (figure: string, value: number | null, version = '', band = '', to_band = '') =>
    rows.push({ figure, version, band, to_band, value: n(value) });
  row('scores', f.scores);
  row('reproduced', f.reproduced);
  row('unknown_version', f.unknown_version);
  row('context_inferred', f.context_inferred);
  row('context_ambiguous', f.context_ambiguous);
  for (const from of BANDS) for (const to of BANDS) row('movement', f.movement[from][to], '', from, to);
  for (const role of ROLES) {
    const v = f[role];
    row(`${role}_version`, 1, v.version);
    for (const b of BANDS) {
      const x = v.bands[b];
      row('band_scores', x.scores, v.version, b);
      row('band_share', x.share, v.version, b);
      row('fraud', x.fraud, v.version, b);
      row('not_fraud', x.not_fraud, v.version, b);
      row('with_outcome', x.with_outcome, v.version, b);
      row('fraud_rate_of_reported', x.fraud_rate_of_reported, v.version, b);
      row('fraud_rate_of_all', x.fraud_rate_of_all, v.version, b);
    }
    row('fraud_capture_high_plus', v.fraud_capture_high_plus, v.version);
    row('fraud_capture_critical', v.fraud_capture_critical, v.version);
    row('not_fraud_friction', v.not_fraud_friction, v.version);
    row('psi', v.psi, v.version);
    for (const c of CAPS) row(`cap_${c.name}`, v.caps[c.name].share, v.version, c.from);
    row('caps_pass', v.caps_pass ? 1 : 0, v.version);
  }
  return rows;
}

const sqlTime = (d: Date) => d.toISOString().slice(0, 19).replace('T', ' ');

export async function saveRun(
  ch: ClickHouseClient,
  database: string,
  meta: RunMeta,
  f: Figures,
): Promise<number> {
  const base = {
    run_id: meta.run_id,
    ran_at: sqlTime(meta.ran_at),
    candidate: meta.candidate,
    baseline: meta.baseline,
    window_from: meta.from,
    window_to: meta.to,
    org_id: meta.org_id,
    scores: f.scores,
  };
  // NaN is not JSON: ClickHouse reads the string "nan" into a Float64.
  const values = figureRows(f).map((r) => ({
    ...base,
    ...r,
    value: Number.isNaN(r.value) ? 'nan' : r.value,
  }));
  await ch.insert({ table: `${quoteIdent(database)}.backtests`, values, format: 'JSONEachRow' });
  return values.length;
}

const LatestRow = z
  .object({
    run_id: z.string(),
    ran_at: z.string(),
    window_from: z.string(),
    window_to: z.string(),
    org_id: z.string(),
    figure: z.string(),
    version: z.string(),
    value: z.union([z.number(), z.string()]).transform(Number),
  })
  .describe('latest backtest figure');

export interface LatestBacktest {
  run_id: string;
  /** ISO time. */
  ran_at: string;
  window: { from: string; to: string; org_id: string };
  caps: Record<string, { share: number; pass: boolean }>;
  caps_pass: boolean;
  scores: number;
}

/** The latest run of `candidate` against `baseline` over all organisations, or undefined. */
export async function latestRun(
  ch: ClickHouseClient,
  database: string,
  candidate: string,
  baseline: string,
): Promise<LatestBacktest | undefined> {
  const db = quoteIdent(database);
  const rs = await ch.query({
    query: `SELECT run_id, toString(ran_at) AS ran_at, toString(window_from) AS window_from,
                   toString(window_to) AS window_to, org_id, figure, version, value
            FROM ${db}.backtests
            WHERE candidate = ${quote(candidate)} AND baseline = ${quote(baseline)} AND org_id = ''
              AND run_id = (SELECT max(run_id) FROM ${db}.backtests
                            WHERE candidate = ${quote(candidate)} AND baseline = ${quote(baseline)} AND org_id = '')
              AND (figure IN ('caps_pass', 'scores') OR substring(figure, 1, 4) = 'cap_')
              AND (version = ${quote(candidate)} OR version = '')`,
    format: 'JSONEachRow',
  });
  const rows = await readRows(rs, LatestRow);
  const first = rows[0];
  if (!first) return undefined;
  const caps: LatestBacktest['caps'] = {};
  for (const c of CAPS) {
    const r = rows.find((x) => x.figure === `cap_${c.name}`);
    if (r) caps[c.name] = { share: r.value, pass: r.value <= c.max };
  }
  return {
    run_id: first.run_id,
    ran_at: `${first.ran_at.replace(' ', 'T')}Z`,
    window: { from: first.window_from, to: first.window_to, org_id: first.org_id },
    caps,
    caps_pass: rows.find((x) => x.figure === 'caps_pass')?.value === 1,
    scores: rows.find((x) => x.figure === 'scores')?.value ?? 0,
  };
}

export interface Promotion {
  version: string;
  previous_default: string;
  backtest_run_id: string;
  forced: boolean;
  reason: string;
  operator: string;
}

export async function recordPromotion(ch: ClickHouseClient, database: string, p: Promotion): Promise<void> {
  await ch.insert({
    table: `${quoteIdent(database)}.version_promotions`,
    values: [{ ...p, forced: p.forced ? 1 : 0, promoted_at: sqlTime(new Date()) }],
    format: 'JSONEachRow',
  });
}

/** The `sql backtests` blocks of docs/data.md "Backtests", for the tests that run them. */
export function documentedQueries(doc: string): string[] {
  return [...doc.matchAll(/```sql backtests\n([\s\S]*?)```/g)].map((m) => m[1]!.trim());
}
