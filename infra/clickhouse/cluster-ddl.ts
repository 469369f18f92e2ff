/**
 * What one migration statement becomes, as steps that each host is asked for itself, each with the
 * check that says whether a host already has it (migrate.ts applies a step only where it is
 * missing, so an interrupted migration is finished by the next run, whichever hosts it reached).
 *
 * On one server a step is the statement as written. On a cluster (CLICKHOUSE_CLUSTER set) each
 * table becomes a Replicated* table `<name>_local` on every node plus a Distributed table under the
 * original name, so the services' SQL reads and writes `scores` as on one node.
 *
 * No step runs ON CLUSTER: ClickHouse 18.16's DDL worker can fail to record a task as executed on
 * one host ("Node exists ... /executed") and the initiator then waits for it until
 * distributed_ddl_task_timeout, whatever the other hosts did. Asking each host and reading its
 * system tables is bounded by our own timeouts instead.
 *
 * What ClickHouse 18.16 makes necessary here:
 * - column COMMENTs are dropped on the cluster: a replicated table created with them fails on the
 *   other replicas (code 122, "Table structure in ZooKeeper is too different"); the single-node
 *   schema keeps them;
 * - a column change of a replicated table is run on one replica of each shard (ZooKeeper brings it
 *   to the others; running it on both fails with code 44, column exists) and the Distributed table
 *   is then recreated over the local one: it holds no rows (the sink inserts synchronously), only
 *   the column list;
 * - there is no `ADD COLUMN IF NOT EXISTS`, hence the check against system.columns.
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
  list_changes: 'cityHash64(change_id)',
};

export interface ClusterTarget {
  cluster: string;
  database: string;
}

export interface Step {
  /** What the step makes, for the progress and error lines ("column scores_local.raw_risk"). */
  what: string;
  /** The statements one host runs for the step, in order. */
  sql: string[];
  /**
   * `SELECT ... AS n` that reads 1 on a host that has the step done; absent when the statement is
   * harmless to repeat and leaves nothing to look for (a TTL), which is then run once per host.
   */
  done?: string;
  /**
   * A change of this replicated table's structure: run on one replica of each replica group (the
   * hosts whose table shares a ZooKeeper path), which ZooKeeper brings to the others.
   */
  replicated?: { database: string; table: string };
}

const COLUMN_COMMENT = /\s+COMMENT\s+'(?:[^'\\]|\\.|'')*'/g;
const CREATE_TABLE =
  /^(?<lead>[\s\S]*?)CREATE TABLE IF NOT EXISTS (?<db>\w+)\.(?<table>\w+)\s*(?<columns>\([\s\S]*\))\s*ENGINE\s*=\s*(?<engine>\w*MergeTree)(?:\((?<args>[^)]*)\))?(?<rest>[\s\S]*)$/;
const ALTER_TABLE = /^(?<lead>[\s\S]*?)ALTER TABLE (?<db>\w+)\.(?<table>\w+)\s+(?<action>[\s\S]*)$/;
const ADD_COLUMN = /^ADD COLUMN (?<column>\w+)\s/i;
const CREATE_VIEW =
  /^(?<lead>[\s\S]*?)CREATE VIEW IF NOT EXISTS (?<db>\w+)\.(?<view>\w+)\s+AS\s+(?<select>[\s\S]*)$/;
const DROP_TABLE = /^(?<lead>[\s\S]*?)DROP TABLE IF EXISTS (?<db>\w+)\.(?<table>\w+)\s*$/;

/** The ZooKeeper path of a replicated table: one replica group per shard. */
export const replicaPath = (database: string, table: string) =>
  `/clickhouse/tables/{shard}/${database}/${table}`;

const tableCount = (db: string, table: string, extra = '') =>
  `SELECT count() AS n FROM system.tables WHERE database = '${db}' AND name = '${table}'${extra}`;
const exists = (db: string, table: string) => tableCount(db, table);
const absent = (db: string, table: string) =>
  `SELECT toUInt64(count() = 0) AS n FROM system.tables WHERE database = '${db}' AND name = '${table}'`;
const hasColumn = (db: string, table: string, column: string) =>
  `SELECT count() AS n FROM system.columns WHERE database = '${db}' AND table = '${table}' AND name = '${column}'`;

function shardingKey(table: string): string {
  const key = SHARDING_KEYS[table];
  if (!key) throw new Error(`cluster mode: no sharding key for table ${table} (add it to SHARDING_KEYS)`);
  return key;
}

/** The Distributed table over `<table>_local`, made again until it has every local column. */
function distributed(t: ClusterTarget, table: string): Step {
  const db = t.database;
  return {
    what: `Distributed table ${table}`,
    sql: [
      `DROP TABLE IF EXISTS ${db}.${table}`,
      `CREATE TABLE IF NOT EXISTS ${db}.${table} AS ${db}.${table}_local\n` +
        `ENGINE = Distributed(${t.cluster}, ${db}, ${table}_local, ${shardingKey(table)})`,
    ],
    done:
      `SELECT toUInt64(count() = 0 AND (${tableCount(db, table, " AND engine = 'Distributed'")}) = 1) AS n ` +
      `FROM system.columns WHERE database = '${db}' AND table = '${table}_local' AND name NOT IN ` +
      `(SELECT name FROM system.columns WHERE database = '${db}' AND table = '${table}')`,
  };
}

/** The steps of one ALTER TABLE on `table` (the local one on a cluster); ADD COLUMN and TTL only. */
function alterSteps(db: string, table: string, statement: string, action: string): Step {
  const column = ADD_COLUMN.exec(action)?.groups?.column;
  if (column)
    return {
      what: `column ${table}.${column}`,
      sql: [statement],
      done: hasColumn(db, table, column),
      replicated: { database: db, table },
    };
  if (/^MODIFY TTL\b/i.test(action))
    return { what: `TTL of ${table}`, sql: [statement], replicated: { database: db, table } };
  throw new Error(`no check for this ALTER (ADD COLUMN and MODIFY TTL have one):\n${statement}`);
}

/** The steps of one migration statement on one server: the statement as written, with its check. */
export function singleSteps(sql: string): Step[] {
  const create = CREATE_TABLE.exec(sql)?.groups;
  if (create) return [{ what: `table ${create.table}`, sql: [sql], done: exists(create.db!, create.table!) }];
  const alter = ALTER_TABLE.exec(sql)?.groups;
  if (alter) return [alterSteps(alter.db!, alter.table!, sql, alter.action!)];
  const view = CREATE_VIEW.exec(sql)?.groups;
  if (view) return [{ what: `view ${view.view}`, sql: [sql], done: exists(view.db!, view.view!) }];
  const drop = DROP_TABLE.exec(sql)?.groups;
  if (drop) return [{ what: `drop of ${drop.table}`, sql: [sql], done: absent(drop.db!, drop.table!) }];
  throw new Error(`no check for this statement:\n${sql}`);
}

/** The steps one migration statement becomes on a cluster, in order. */
export function clusterSteps(sql: string, t: ClusterTarget): Step[] {
  const create = CREATE_TABLE.exec(sql)?.groups;
  if (create) {
    const { lead, db, table, columns, engine, args, rest } = create;
    const replicated = [
      `'${replicaPath(db!, `${table}_local`)}'`,
      `'{replica}'`,
      ...(args?.trim() ? [args] : []),
    ];
    return [
      {
        what: `table ${table}_local`,
        sql: [
          `${lead}CREATE TABLE IF NOT EXISTS ${db}.${table}_local\n${columns!.replace(COLUMN_COMMENT, '')}\n` +
            `ENGINE = Replicated${engine}(${replicated.join(', ')})${rest}`,
        ],
        done: exists(db!, `${table}_local`),
      },
      distributed(t, table!),
    ];
  }
  const alter = ALTER_TABLE.exec(sql)?.groups;
  if (alter) {
    const { lead, db, table, action } = alter;
    const local = `${lead}ALTER TABLE ${db}.${table}_local ${action!.replace(COLUMN_COMMENT, '')}`;
    const step = alterSteps(db!, `${table}_local`, local, action!);
    // A TTL concerns the stored rows only; a column change must reach the Distributed table too.
    return step.done ? [step, distributed(t, table!)] : [step];
  }
  const view = CREATE_VIEW.exec(sql)?.groups;
  if (view) return [{ what: `view ${view.view}`, sql: [sql], done: exists(view.db!, view.view!) }];
  const drop = DROP_TABLE.exec(sql)?.groups;
  if (drop) {
    if (drop.table! in SHARDING_KEYS)
      throw new Error(`cluster mode: dropping table ${drop.table} is not supported`);
    return [{ what: `drop of ${drop.table}`, sql: [sql], done: absent(drop.db!, drop.table!) }];
  }
  throw new Error(`cluster mode: no cluster form for this statement:\n${sql}`);
}
