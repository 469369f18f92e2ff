import type { ClickHouseClient } from '../../shared/clients/clickhouse.ts';
import { quote } from '../../shared/clients/sql.ts';
import { SYSTEM_TABLES, TABLES } from '../../shared/clickhouse/rows.ts';

/**
 * The columns the table schemas of shared/clickhouse/rows.ts name, as `table.column`
 * (`system.table.column` for ClickHouse's own tables), each with whether `db` has it.
 */
export async function rowSchemaColumns(ch: ClickHouseClient, db: string): Promise<Record<string, boolean>> {
  const named = (prefix: string, tables: Record<string, { shape: object }>) =>
    Object.entries(tables).flatMap(([t, s]) => Object.keys(s.shape).map((c) => `${prefix}${t}.${c}`));
  const wanted = [...named('', TABLES), ...named('system.', SYSTEM_TABLES)];
  const rs = await ch.query({
    query: `SELECT database, table, name FROM system.columns
            WHERE (database = ${quote(db)} AND table IN (${Object.keys(TABLES).map(quote).join(', ')}))
               OR (database = 'system' AND table IN (${Object.keys(SYSTEM_TABLES).map(quote).join(', ')}))`,
    format: 'JSONEachRow',
  });
  const have = new Set(
    (await rs.json<{ database: string; table: string; name: string }>()).map(
      (c) => `${c.database === 'system' ? 'system.' : ''}${c.table}.${c.name}`,
    ),
  );
  return Object.fromEntries(wanted.map((w) => [w, have.has(w)]));
}
