import { RETENTION_MONTHS } from '../../../shared/audit/history.ts';
import type { ClickHouseClient } from '../../../shared/clients/clickhouse.ts';
import { quote, quoteIdent } from '../../../shared/clients/sql.ts';
import type { Logger } from '../../../shared/logger.ts';
import type { RefresherJob } from './job.ts';
import { PartitionRow, readRows } from '../../../shared/clickhouse/rows.ts';

/**
 * Oldest monthly partition (YYYYMM) still kept at `now`: the month RETENTION_MONTHS back. Every
 * row of an older month is past 13 months, while that month still holds rows younger than 13
 * months; so a score lives at least 13 and at most 14 months.
 */
export function oldestKeptPartition(now: Date): number {
  const months = now.getUTCFullYear() * 12 + now.getUTCMonth() - RETENTION_MONTHS;
  return Math.floor(months / 12) * 100 + (months % 12) + 1;
}

/**
 * The monthly-partitioned tables kept 13 months: scores by scored_at, outcomes by received_at,
 * the ledger's scored subjects by day, withdrawals by when they were made, list changes by when
 * they were made.
 */
export type RetainedTable =
  'scores' | 'outcomes' | 'scored_subjects' | 'outcome_withdrawals' | 'list_changes';

/**
 * How long ClickHouse waits for every host to run one ON CLUSTER drop before it answers with an
 * error (`distributed_ddl_task_timeout`, a setting 18.16 has; its default is 180 s). A host that
 * is down or a DDL queue stuck behind another task (18.16 can leave one waiting for good) then
 * fails the run within seconds rather than holding it for minutes; ClickHouse keeps the task
 * queued, so the late hosts still run it, and the next daily run drops whatever is left.
 */
export const RETENTION_DDL_TIMEOUT_S = 20;
/**
 * The client gives up this long after the server's own timeout: the server's answer, which names
 * the hosts that are late, comes first. The total stays under the client's 30 s request timeout
 * (clickHouseNodes), whose expiry the failover client would take for a dead node and resend the
 * statement to the next node, queueing it on the cluster once more.
 */
const CLIENT_MARGIN_MS = 5_000;

/**
 * The parameters of one ON CLUSTER statement of the job: bounded on the server and on the client,
 * and answered only when it finished (`wait_end_of_query`: ClickHouse streams an ON CLUSTER
 * statement's per-host rows, and an error after the first row would arrive under a 200).
 */
export function onClusterCommand(query: string, timeoutS = RETENTION_DDL_TIMEOUT_S) {
  return {
    query,
    clickhouse_settings: { distributed_ddl_task_timeout: String(timeoutS), wait_end_of_query: 1 as const },
    abort_signal: AbortSignal.timeout(timeoutS * 1000 + CLIENT_MARGIN_MS),
  };
}

/**
 * Drops the partitions of `{db}.{table}` older than the oldest kept month. Works on every server
 * version (18.16 has no TTL); idempotent, so a re-run or a run on two workers is harmless. On a
 * cluster (`cluster` set) the rows live in `{table}_local` on every shard: its parts are read
 * through the `cluster()` table function (one replica per shard: the replicas of a shard hold
 * the same partitions) and dropped ON CLUSTER, which each shard's replicas replicate, each drop
 * within `ddlTimeoutS` (RETENTION_DDL_TIMEOUT_S) or failing with an error that says which.
 */
export async function dropExpiredPartitions(
  ch: ClickHouseClient,
  database: string,
  now = new Date(),
  table: RetainedTable = 'scores',
  cluster?: string,
  ddlTimeoutS = RETENTION_DDL_TIMEOUT_S,
) {
  const db = quoteIdent(database);
  const stored = cluster ? `${table}_local` : table;
  const parts = cluster ? `cluster(${quote(cluster)}, system, parts)` : 'system.parts';
  const rs = await ch.query({
    query: `SELECT DISTINCT partition FROM ${parts}
            WHERE database = ${quote(database)} AND table = ${quote(stored)} AND active`,
    format: 'JSONEachRow',
  });
  const keep = oldestKeptPartition(now);
  const expired = (await readRows(rs, PartitionRow))
    .map((r) => r.partition)
    .filter((p) => /^\d{6}$/.test(p) && Number(p) < keep)
    .sort();
  for (const p of expired) {
    if (!cluster) {
      await ch.command({ query: `ALTER TABLE ${db}.${quoteIdent(stored)} DROP PARTITION ${p}` });
      continue;
    }
    const query = `ALTER TABLE ${db}.${quoteIdent(stored)} ON CLUSTER ${quoteIdent(cluster)} DROP PARTITION ${p}`;
    await ch.command(onClusterCommand(query, ddlTimeoutS)).catch((err: unknown) => {
      throw new Error(
        `audit retention: partition ${p} of ${database}.${stored} not dropped on every host of cluster ` +
          `${cluster} (waited at most ${ddlTimeoutS} s): ${String((err as Error)?.message ?? err).slice(0, 500)}; ` +
          'a host that is late still runs the queued drop, and the next run drops what is left',
        { cause: err },
      );
    });
  }
  return { dropped: expired, oldestKept: keep };
}

export interface RetentionDeps {
  ch: ClickHouseClient;
  database: string;
  /** CLICKHOUSE_CLUSTER: the tables are Replicated `_local` ones behind Distributed ones. */
  cluster?: string | undefined;
  log: Logger;
}

/** Daily at 03:17 UTC: a quiet hour, and off the top of the hour when other schedules pile up. */
export function retentionJob(deps: RetentionDeps): RefresherJob {
  return {
    name: 'audit-retention',
    repeat: { pattern: '17 3 * * *', tz: 'UTC' },
    run: async () => {
      const now = new Date();
      const drop = (table: RetainedTable) =>
        dropExpiredPartitions(deps.ch, deps.database, now, table, deps.cluster);
      const result = {
        ...(await drop('scores')),
        outcomesDropped: (await drop('outcomes')).dropped,
        scoredSubjectsDropped: (await drop('scored_subjects')).dropped,
        withdrawalsDropped: (await drop('outcome_withdrawals')).dropped,
        listChangesDropped: (await drop('list_changes')).dropped,
      };
      deps.log.info(result, 'audit retention: expired partitions dropped');
      return result;
    },
  };
}
