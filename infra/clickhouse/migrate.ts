/**
 * Applies the numbered migrations in infra/clickhouse/migrations in order, once each.
 *
 * Each file holds statements separated by a line that is exactly `;`-terminated; `{db}` stands for
 * the database name. Applied versions are recorded in `{db}.schema_migrations`, so a second run is a
 * no-op. A statement preceded by `-- requires: ttl` runs only on servers that support TTL
 * (19.6+); 18.16 relies on the retention job instead.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadConfig } from '../../shared/config.ts';
import { createClickHouse, serverVersion, type ClickHouseClient } from '../../shared/clients/clickhouse.ts';
import { AppliedMigrationRow, readRows } from '../../shared/clickhouse/rows.ts';

const MIGRATIONS_DIR = join(import.meta.dirname, 'migrations');

interface Migration {
  version: number;
  name: string;
  statements: { sql: string; requiresTtl: boolean }[];
}

export async function loadMigrations(db: string): Promise<Migration[]> {
  const files = (await readdir(MIGRATIONS_DIR)).filter((f) => /^\d{3}_[a-z0-9_]+\.sql$/.test(f)).sort();
  const out: Migration[] = [];
  for (const file of files) {
    const text = (await readFile(join(MIGRATIONS_DIR, file), 'utf8')).replaceAll('{db}', db);
    const statements = text
      .split(/;\s*$/m)
      .map((s) => s.trim())
      .filter((s) => s.replace(/--.*$/gm, '').trim().length > 0)
      .map((sql) => ({ sql, requiresTtl: /^--\s*requires:\s*ttl\b/m.test(sql) }));
    out.push({ version: Number(file.slice(0, 3)), name: file, statements });
  }
  return out;
}

export async function migrate(ch: ClickHouseClient, db: string, log = (m: string) => console.error(m)) {
  const [major, minor] = await serverVersion(ch);
  const supportsTtl = major > 19 || (major === 19 && minor >= 6);
  await ch.command({ query: `CREATE DATABASE IF NOT EXISTS ${db}` });
  await ch.command({
    query: `CREATE TABLE IF NOT EXISTS ${db}.schema_migrations (
      version UInt32, name String, applied_at DateTime DEFAULT now()
    ) ENGINE = MergeTree ORDER BY version`,
  });
  const rs = await ch.query({ query: `SELECT version FROM ${db}.schema_migrations`, format: 'JSONEachRow' });
  const applied = new Set((await readRows(rs, AppliedMigrationRow)).map((r) => r.version));
  let count = 0;
  for (const m of await loadMigrations(db)) {
    if (applied.has(m.version)) continue;
    for (const s of m.statements) {
      if (s.requiresTtl && !supportsTtl) continue;
      await ch.command({ query: s.sql });
    }
    await ch.insert({
      table: `${db}.schema_migrations`,
      values: [{ version: m.version, name: m.name }],
      format: 'JSONEachRow',
    });
    log(`[migrate] applied ${m.name}`);
    count++;
  }
  return count;
}

if (import.meta.main) {
  const cfg = loadConfig();
  const ch = createClickHouse(cfg.CLICKHOUSE_URL);
  try {
    const n = await migrate(ch, cfg.CLICKHOUSE_DATABASE);
    console.error(`[stack] clickhouse schema up to date (${n} migration(s) applied)`);
  } finally {
    await ch.close();
  }
}
