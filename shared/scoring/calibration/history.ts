/**
 * The scored population, read from ClickHouse for `npm run calibrate -- --from-history`.
 *
 * Rows of every organisation over the last `days` days, each subject counted once per UTC day
 * (a hammered number or a retried request does not weigh more than a subject seen once, and a
 * re-delivered row collapses with its original), and only rows whose `raw_risk` was computed under
 * the same points as the version being built: a raw risk is only comparable under one set of
 * points. Rows of other versions are counted and reported, not used.
 */
import type { ClickHouseClient } from '../../clients/clickhouse.ts';
import { quote, quoteIdent } from '../../clients/sql.ts';
import type { VersionDefinition } from '../weights.ts';
import { VERSION_DEFINITIONS } from '../weights.ts';
import { CalibrationRow, CountRow, readRows } from '../../clickhouse/rows.ts';

export interface HistoryRow {
  raw: number;
  fired: string[];
}

const samePoints = (a: VersionDefinition, b: VersionDefinition) =>
  JSON.stringify(Object.entries(a.points).sort()) === JSON.stringify(Object.entries(b.points).sort());

export async function historyRaws(
  def: VersionDefinition,
  days: number,
  ch: ClickHouseClient,
  database: string,
): Promise<{ rows: HistoryRow[]; versions: string[]; skipped: number }> {
  const table = `${quoteIdent(database)}.scores`;
  const versions = VERSION_DEFINITIONS.filter((v) => samePoints(v, def)).map((v) => v.id);
  const since = `scored_at >= toDateTime(${Math.floor(Date.now() / 1000) - days * 86_400})`;
  const rs = await ch.query({
    query: `SELECT any(raw_risk) AS raw, any(fired_components) AS fired
              FROM ${table}
              WHERE ${since} AND score_version IN (${versions.map(quote).join(', ')})
              GROUP BY toDate(scored_at) AS day, cityHash64(visitParamExtractRaw(request_json, 'subject')) AS subject`,
    format: 'JSONEachRow',
  });
  const rows = await readRows(rs, CalibrationRow);
  const other = await ch.query({
    query: `SELECT count() AS n FROM ${table} WHERE ${since} AND score_version NOT IN (${versions.map(quote).join(', ')})`,
    format: 'JSONEachRow',
  });
  const [{ n } = { n: 0 }] = await readRows(other, CountRow);
  return { rows, versions, skipped: n };
}
