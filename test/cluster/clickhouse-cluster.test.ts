/**
 * The schema's cluster mode on 2 shards x 2 replicas of ClickHouse 18.16 with ZooKeeper
 * (infra/local/clickhouse-cluster.sh): migrations on every node, recorded once, a migration left
 * half-done on one shard finished by the next run, a host out of reach named in the error; the sink's batch
 * inserted twice through the Distributed table is one row per score, with and without FINAL
 * (replicated block deduplication) and spread over both shards; explain finds a score its first
 * replica has not fetched yet; retention drops an expired month on every replica, and a drop a
 * paused host holds fails within its own timeout; the client fails over past a node that does not
 * answer. The cluster is used once its DDL queue is empty (ch-cluster.ts), and stopped at the end
 * by this file, or by global-teardown.ts when a hook failed.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadMigrations, migrate, urlHosts, type Host } from '../../infra/clickhouse/migrate.ts';
import { dropExpiredPartitions } from '../../services/refresher/jobs/retention.ts';
import { insertSlice, scoredSubjectRows } from '../../services/audit-sink/sink.ts';
import { ScoreHistory } from '../../shared/audit/history.ts';
import { clickHouseNodes, createClickHouse, type ClickHouseClient } from '../../shared/clients/clickhouse.ts';
import { toRow } from '../../services/audit-sink/sink.ts';
import { auditRecord, scoreIdAt, sinkSlice } from '../helpers/audit-rows.ts';
import {
  clickHouseCluster,
  clusterNodePid,
  ddlQueueDrained,
  type ClusterUnderTest,
} from '../helpers/ch-cluster.ts';

const CLUSTER = 'frs';
const DB = `frs_cluster_${randomBytes(4).toString('hex')}`;
const ORG = 'org_0123456789abcdef';
const N = 200;

let cluster: ClusterUnderTest | undefined;
let skipReason = '';
let ch: ClickHouseClient;
let nodes: ClickHouseClient[] = [];
let hosts: Host[] = [];

async function rows(client: ClickHouseClient, query: string): Promise<Record<string, unknown>[]> {
  return (await client.query({ query, format: 'JSONEachRow' })).json<Record<string, unknown>>();
}
const count = async (client: ClickHouseClient, query: string) => Number((await rows(client, query))[0]!.n);

const target = {
  table: `${DB}.scores`,
  derived: {
    table: `${DB}.scored_subjects`,
    rows: scoredSubjectRows,
  },
};

beforeAll(async () => {
  const started = await clickHouseCluster(60_000);
  if (typeof started === 'string') {
    skipReason = started;
    return;
  }
  cluster = started;
  // A node that does not answer first in the list: every call fails over to the next.
  ch = createClickHouse(['http://127.0.0.1:1', ...cluster.urls].join(','), { requestTimeoutMs: 120_000 });
  nodes = clickHouseNodes(cluster.urls.join(','));
  hosts = urlHosts(cluster.urls.join(','), 120_000);
}, 120_000);

afterAll(async () => {
  if (!cluster) return;
  try {
    // Each node for itself, bounded, and no ON CLUSTER: a statement queued behind a stuck DDL task
    // would hold the hook past its timeout, and the release below would never run. A cluster this
    // file started is stopped whatever happens here (and by global-teardown.ts if not even that).
    const drop = { query: `DROP DATABASE IF EXISTS ${DB}`, abort_signal: AbortSignal.timeout(20_000) };
    await Promise.allSettled(nodes.map((n) => n.command(drop)));
    await Promise.allSettled([ch, ...nodes, ...hosts.map((h) => h.client)].map((c) => c.close()));
  } finally {
    await cluster.release();
  }
}, 120_000);

describe('ClickHouse cluster mode (2 shards x 2 replicas)', () => {
  it('migrates every node and records each migration once for all of them', async (ctx) => {
    if (!cluster) return ctx.skip(skipReason);
    const applied = await migrate(ch, DB, () => undefined, CLUSTER, { hosts });
    expect(applied).toBeGreaterThan(0);
    expect(await migrate(ch, DB, () => undefined, CLUSTER, { hosts })).toBe(0);
    for (const node of nodes) {
      await node.command({ query: `SYSTEM SYNC REPLICA ${DB}.schema_migrations` });
      expect(await count(node, `SELECT count() AS n FROM ${DB}.schema_migrations`)).toBe(applied);
      expect(
        await rows(node, `SELECT engine FROM system.tables WHERE database = '${DB}' AND name = 'scores'`),
      ).toEqual([{ engine: 'Distributed' }]);
    }
  });

  it('finishes a migration an earlier run left on one shard and not the other', async (ctx) => {
    if (!cluster) return ctx.skip(skipReason);
    const db = `${DB}_half`;
    const all = await loadMigrations(db);
    const m004 = all.find((m) => m.name === '004_score_quality.sql')!;
    try {
      await migrate(ch, db, () => undefined, CLUSTER, {
        hosts,
        migrations: all.filter((m) => m.version < 4),
      });
      // What a run that stopped inside 004 leaves: two of its columns on shard 1's replicas (node 1,
      // which ZooKeeper copies to node 2), none on shard 2's, the Distributed table still without
      // them, and 004 not recorded.
      for (const column of ['raw_risk Float64', 'fired_components Array(String)'])
        await nodes[0]!.command({ query: `ALTER TABLE ${db}.scores_local ADD COLUMN ${column}` });
      const columnsOf = (node: ClickHouseClient, table: string) =>
        rows(
          node,
          `SELECT name FROM system.columns WHERE database = '${db}' AND table = '${table}' AND name IN ('raw_risk', 'challenger_band')`,
        ).then((r) => r.map((c) => c.name).sort());
      expect(await columnsOf(nodes[1]!, 'scores_local')).toEqual(['raw_risk']);
      expect(await columnsOf(nodes[2]!, 'scores_local')).toEqual([]);

      const log: string[] = [];
      expect(await migrate(ch, db, (m) => log.push(m), CLUSTER, { hosts })).toBe(all.length - 3);
      expect(log[0]).toBe(`[migrate] applied ${m004.name}`);
      for (const node of nodes) {
        expect(await columnsOf(node, 'scores_local')).toEqual(['challenger_band', 'raw_risk']);
        expect(await columnsOf(node, 'scores')).toEqual(['challenger_band', 'raw_risk']);
        await node.command({ query: `SYSTEM SYNC REPLICA ${db}.schema_migrations` });
        expect(await count(node, `SELECT count() AS n FROM ${db}.schema_migrations`)).toBe(all.length);
      }
      expect(await migrate(ch, db, () => undefined, CLUSTER, { hosts })).toBe(0);
    } finally {
      for (const node of nodes) await node.command({ query: `DROP DATABASE IF EXISTS ${db}` });
    }
  });

  it('fails naming the migration and the host when a host lacks a step it cannot be given', async (ctx) => {
    if (!cluster) return ctx.skip(skipReason);
    const db = `${DB}_down`;
    const [m001] = await loadMigrations(db);
    const unreachable = urlHosts('http://127.0.0.1:1', 2_000)[0]!;
    try {
      const run = migrate(ch, db, () => undefined, CLUSTER, {
        hosts: [...hosts, unreachable],
        migrations: [m001!],
        attempts: 2,
        boundMs: 2_000,
      });
      await expect(run).rejects.toThrow(
        /^schema_migrations \(the migrations ledger\): database \w+ still missing after 2 tries \(.*\) on http:\/\/127\.0\.0\.1:1\. .*start again/,
      );
    } finally {
      await unreachable.client.close();
      for (const node of nodes) await node.command({ query: `DROP DATABASE IF EXISTS ${db}` });
    }
  });

  it('reads a batch inserted twice exactly once through the Distributed table', async (ctx) => {
    if (!cluster) return ctx.skip(skipReason);
    const slice = sinkSlice(ORG, N, Math.floor(Date.now() / 1000));
    await insertSlice(ch, target, slice);
    await insertSlice(ch, target, slice);
    const where = `WHERE org_id = '${ORG}'`;
    expect(await count(ch, `SELECT count() AS n FROM ${DB}.scores FINAL ${where}`)).toBe(N);
    // Without FINAL too: the repeated blocks were dropped by the replicated tables.
    expect(await count(ch, `SELECT count() AS n FROM ${DB}.scores ${where}`)).toBe(N);
    const perShard = await Promise.all(
      [nodes[0]!, nodes[2]!].map((n) => count(n, `SELECT count() AS n FROM ${DB}.scores_local ${where}`)),
    );
    expect(perShard[0]! + perShard[1]!).toBe(N);
    expect(Math.min(...perShard)).toBeGreaterThan(N / 4);
  });

  it('finds a score the first replica it asks has not fetched yet', async (ctx) => {
    if (!cluster) return ctx.skip(skipReason);
    const [first, second] = [nodes[0]!, nodes[1]!];
    await second.command({ query: `SYSTEM STOP FETCHES ${DB}.scores_local` });
    try {
      const slice = sinkSlice(ORG, 20, Math.floor(Date.now() / 1000));
      await insertSlice(first, target, slice);
      const onShard1 = (
        await rows(
          first,
          `SELECT score_id FROM ${DB}.scores_local WHERE org_id = '${ORG}' AND score_id IN (${slice
            .map((s) => `'${s.record.score_id}'`)
            .join(',')})`,
        )
      ).map((r) => String(r.score_id));
      expect(onShard1.length).toBeGreaterThan(0);
      const id = onShard1[0]!;
      // Through the second node its own replica answers for shard 1: it lacks the row.
      expect(await new ScoreHistory(second, DB).find(ORG, id)).toBeNull();
      expect(await new ScoreHistory(second, DB, nodes).find(ORG, id)).toMatchObject({
        score_id: id,
        org_id: ORG,
      });
    } finally {
      await second.command({ query: `SYSTEM START FETCHES ${DB}.scores_local` });
    }
  });

  it('drops an expired month on every replica', async (ctx) => {
    if (!cluster) return ctx.skip(skipReason);
    const old = new Date();
    old.setUTCMonth(old.getUTCMonth() - 15);
    const ms = old.getTime();
    const slice = Array.from({ length: 20 }, (_, i) => {
      const record = auditRecord(ORG, scoreIdAt(ms + i, i), ms + i);
      return { row: { ...toRow(record), inserted_at: Math.floor(Date.now() / 1000) }, record };
    });
    await insertSlice(ch, target, slice);
    const month = old.toISOString().slice(0, 7).replace('-', '');
    const result = await dropExpiredPartitions(ch, DB, new Date(), 'scores', CLUSTER);
    expect(result.dropped).toEqual([month]);
    for (const node of nodes) {
      await node.command({ query: `SYSTEM SYNC REPLICA ${DB}.scores_local` });
      expect(
        await count(node, `SELECT count() AS n FROM ${DB}.scores_local WHERE toYYYYMM(scored_at) = ${month}`),
      ).toBe(0);
    }
    expect(await count(ch, `SELECT count() AS n FROM ${DB}.scores FINAL WHERE org_id = '${ORG}'`)).toBe(
      N + 20,
    );
  });

  it('fails a drop a host does not run within its own timeout, and the host runs it later', async (ctx) => {
    if (!cluster) return ctx.skip(skipReason);
    const old = new Date();
    old.setUTCMonth(old.getUTCMonth() - 16);
    const record = auditRecord(ORG, scoreIdAt(old.getTime(), 0), old.getTime());
    await insertSlice(ch, target, [
      { row: { ...toRow(record), inserted_at: Math.floor(Date.now() / 1000) }, record },
    ]);
    const month = old.toISOString().slice(0, 7).replace('-', '');
    // Node 4 paused (for less than its 10 s ZooKeeper session): its DDL worker cannot run the task.
    const paused = await clusterNodePid(4);
    process.kill(paused, 'SIGSTOP');
    const started = performance.now();
    try {
      const drop = dropExpiredPartitions(ch, DB, new Date(), 'scores', CLUSTER, 2);
      await expect(drop).rejects.toThrow(
        new RegExp(
          `^audit retention: partition ${month} of ${DB}.scores_local not dropped on every host of cluster frs \\(waited at most 2 s\\): .*distributed_ddl_task_timeout \\(=2\\).*\\d+ unfinished hosts`,
        ),
      );
      expect(performance.now() - started).toBeLessThan(6_000);
    } finally {
      process.kill(paused, 'SIGCONT');
    }
    // Resumed, the host runs the queued drop: the queue drains and no replica holds the month.
    await ddlQueueDrained(cluster.urls[0]!, 30_000);
    for (const node of nodes) {
      await node.command({ query: `SYSTEM SYNC REPLICA ${DB}.scores_local` });
      expect(
        await count(node, `SELECT count() AS n FROM ${DB}.scores_local WHERE toYYYYMM(scored_at) = ${month}`),
      ).toBe(0);
    }
  });
});
