/**
 * The cluster form of a migration statement (CLICKHOUSE_CLUSTER set): each table becomes a
 * Replicated* table `<name>_local` on every node plus a Distributed table under the original
 * name, so the services' SQL reads and writes `scores` as on one node. Everything runs ON CLUSTER.
 *
 * What ClickHouse 18.16 makes necessary here:
 * - column COMMENTs are dropped: a replicated table created with them fails on the other replicas
 *   (code 122, "Table structure in ZooKeeper is too different"); the single-node schema keeps them;
 * - ALTER ... ON CLUSTER refuses a Distributed table on a cluster with replicated shards
 *   (code 371), so after a local table's ALTER its Distributed table is recreated over it: it
 *   holds no rows (the sink inserts synchronously), only the column list.
 */

/**
 * Each table's sharding key: every copy of one record (a retry, a journal replay) lands on the same
 * shard, where ReplacingMergeTree and FINAL collapse it. A new table needs an entry.
 */
export const SHARDING_KEYS: Readonly<Record<string, string>> = {
  scores: 'cityHash64(score_id)',
  outcomes: 'cityHash64(outcome_id)',
  scored_subjects: 'cityHash64(org_id, subject)',
  outcome_withdrawals: 'cityHash64(outcome_id)',
  backtests: 'cityHash64(run_id)',
  version_promotions: 'cityHash64(version)',
};

export interface ClusterTarget {
  cluster: string;
  database: string;
}

const COLUMN_COMMENT = /\s+COMMENT\s+'(?:[^'\\]|\\.|'')*'/g;
const CREATE_TABLE =
  /^(?<lead>[\s\S]*?)CREATE TABLE IF NOT EXISTS (?<db>\w+)\.(?<table>\w+)\s*(?<columns>\([\s\S]*\))\s*ENGINE\s*=\s*(?<engine>\w*MergeTree)(?:\((?<args>[^)]*)\))?(?<rest>[\s\S]*)$/;
const ALTER_TABLE = /^(?<lead>[\s\S]*?)ALTER TABLE (?<db>\w+)\.(?<table>\w+)\s+(?<action>[\s\S]*)$/;
const CREATE_VIEW =
  /^(?<lead>[\s\S]*?)CREATE VIEW IF NOT EXISTS (?<db>\w+)\.(?<view>\w+)\s+AS\s+(?<select>[\s\S]*)$/;
const DROP_TABLE = /^(?<lead>[\s\S]*?)DROP TABLE IF EXISTS (?<db>\w+)\.(?<table>\w+)\s*$/;

/** The ZooKeeper path of a replicated table: one replica group per shard. */
export const replicaPath = (database: string, table: string) =>
  `/clickhouse/tables/{shard}/${database}/${table}`;

function shardingKey(table: string): string {
  const key = SHARDING_KEYS[table];
  if (!key) throw new Error(`cluster mode: no sharding key for table ${table} (add it to SHARDING_KEYS)`);
  return key;
}

function distributed(t: ClusterTarget, table: string): string {
  const db = t.database;
  return (
    `CREATE TABLE IF NOT EXISTS ${db}.${table} ON CLUSTER ${t.cluster} AS ${db}.${table}_local\n` +
    `ENGINE = Distributed(${t.cluster}, ${db}, ${table}_local, ${shardingKey(table)})`
  );
}

/** The statements one migration statement becomes on a cluster, in order. */
export function clusterStatements(sql: string, t: ClusterTarget): string[] {
  const on = `ON CLUSTER ${t.cluster}`;
  const create = CREATE_TABLE.exec(sql)?.groups;
  if (create) {
    const { lead, db, table, columns, engine, args, rest } = create;
    const replicated = [
      `'${replicaPath(db!, `${table}_local`)}'`,
      `'{replica}'`,
      ...(args?.trim() ? [args] : []),
    ];
    return [
      `${lead}CREATE TABLE IF NOT EXISTS ${db}.${table}_local ${on}\n${columns!.replace(COLUMN_COMMENT, '')}\n` +
        `ENGINE = Replicated${engine}(${replicated.join(', ')})${rest}`,
      distributed(t, table!),
    ];
  }
  const alter = ALTER_TABLE.exec(sql)?.groups;
  if (alter) {
    const { lead, db, table, action } = alter;
    const local = `${lead}ALTER TABLE ${db}.${table}_local ${on} ${action!.replace(COLUMN_COMMENT, '')}`;
    // A TTL concerns the stored rows only; a column change must reach the Distributed table too.
    if (/^MODIFY TTL\b/i.test(action!)) return [local];
    return [local, `DROP TABLE IF EXISTS ${db}.${table} ${on}`, distributed(t, table!)];
  }
  const view = CREATE_VIEW.exec(sql)?.groups;
  if (view) return [`${view.lead}CREATE VIEW IF NOT EXISTS ${view.db}.${view.view} ${on} AS ${view.select}`];
  const drop = DROP_TABLE.exec(sql)?.groups;
  if (drop) {
    if (drop.table! in SHARDING_KEYS)
      throw new Error(`cluster mode: dropping table ${drop.table} is not supported`);
    return [`${drop.lead}DROP TABLE IF EXISTS ${drop.db}.${drop.table} ${on}`];
  }
  throw new Error(`cluster mode: no cluster form for this statement:\n${sql}`);
}
