/**
 * Applies the numbered migrations in infra/clickhouse/migrations in order, once each.
 *
 * Each file holds statements separated by a line that is exactly `;`-terminated; `{db}` stands for
 * the database name. Applied versions are recorded in `{db}.schema_migrations`, so a second run is a
 * no-op. A statement preceded by `-- requires: ttl` runs only on servers that support TTL
 * (19.6+); 18.16 relies on the retention job instead.
 *
 * With a cluster name (CLICKHOUSE_CLUSTER) every statement runs ON CLUSTER in its cluster form
 * (cluster-ddl.ts: Replicated tables behind Distributed ones), and the ledger is one replicated
 * table every node shares, so a migration is recorded once for the whole cluster.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadConfig } from '../../shared/config.ts';
import {
  clickHouseNodes,
  createClickHouse,
  serverVersion,
  type ClickHouseClient,
} from '../../shared/clients/clickhouse.ts';
import { AppliedMigrationRow, readRows } from '../../shared/clickhouse/rows.ts';
import { clusterStatements } from './cluster-ddl.ts';

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

/** The migrations ledger: on a cluster, one replica group of all nodes (no {shard} in its path). */
function ledgerTable(db: string, cluster: string | undefined): string {
  const columns = '(version UInt32, name String, applied_at DateTime DEFAULT now())';
  if (!cluster)
    return `CREATE TABLE IF NOT EXISTS ${db}.schema_migrations ${columns} ENGINE = MergeTree ORDER BY version`;
  return (
    `CREATE TABLE IF NOT EXISTS ${db}.schema_migrations ON CLUSTER ${cluster} ${columns} ` +
    `ENGINE = ReplicatedMergeTree('/clickhouse/tables/all/${db}/schema_migrations', '{replica}') ORDER BY version`
  );
}

export async function migrate(
  ch: ClickHouseClient,
  db: string,
  log = (m: string) => console.error(m),
  cluster?: string,
) {
  const [major, minor] = await serverVersion(ch);
  const supportsTtl = major > 19 || (major === 19 && minor >= 6);
  await ch.command({
    query: `CREATE DATABASE IF NOT EXISTS ${db}${cluster ? ` ON CLUSTER ${cluster}` : ''}`,
  });
  await ch.command({ query: ledgerTable(db, cluster) });
  // Another node may have recorded a migration this replica has not fetched yet.
  if (cluster) await ch.command({ query: `SYSTEM SYNC REPLICA ${db}.schema_migrations` });
  const rs = await ch.query({ query: `SELECT version FROM ${db}.schema_migrations`, format: 'JSONEachRow' });
  const applied = new Set((await readRows(rs, AppliedMigrationRow)).map((r) => r.version));
  let count = 0;
  for (const m of await loadMigrations(db)) {
    if (applied.has(m.version)) continue;
    for (const s of m.statements) {
      if (s.requiresTtl && !supportsTtl) continue;
      const statements = cluster ? clusterStatements(s.sql, { cluster, database: db }) : [s.sql];
      for (const query of statements) await ch.command({ query });
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
  // On a cluster, every statement goes to one node, which waits for its ON CLUSTER task: the
  // failover client would send a statement slower than its timeout to the next node as well,
  // queueing the same DDL twice, and 18.16 runs a cluster's DDL tasks one after another.
  const ch = cfg.CLICKHOUSE_CLUSTER
    ? clickHouseNodes(cfg.CLICKHOUSE_URL, { requestTimeoutMs: 600_000 })[0]!
    : createClickHouse(cfg.CLICKHOUSE_URL);
  try {
    const n = await migrate(ch, cfg.CLICKHOUSE_DATABASE, undefined, cfg.CLICKHOUSE_CLUSTER);
    console.error(`[stack] clickhouse schema up to date (${n} migration(s) applied)`);
  } finally {
    await ch.close();
  }
}
