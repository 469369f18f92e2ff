/**
 * The schema's cluster mode on 2 shards x 2 replicas of ClickHouse 18.16 with ZooKeeper
 * (infra/local/clickhouse-cluster.sh): migrations ON CLUSTER, recorded once; the sink's batch
 * inserted twice through the Distributed table is one row per score, with and without FINAL
 * (replicated block deduplication) and spread over both shards; explain finds a score its first
 * replica has not fetched yet; retention drops an expired month on every replica; the client
 * fails over past a node that does not answer.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../infra/clickhouse/migrate.ts';
import { dropExpiredPartitions } from '../../services/refresher/jobs/retention.ts';
import { insertSlice, scoredSubjectRows } from '../../services/audit-sink/sink.ts';
import { ScoreHistory } from '../../shared/audit/history.ts';
import type { AuditRecordEnvelope } from '../../shared/audit/record.ts';
import { clickHouseNodes, createClickHouse, type ClickHouseClient } from '../../shared/clients/clickhouse.ts';
import { toRow } from '../../services/audit-sink/sink.ts';
import { auditRecord, scoreIdAt, sinkSlice } from '../helpers/audit-rows.ts';
import { clickHouseCluster, type ClusterUnderTest } from '../helpers/ch-cluster.ts';

const CLUSTER = 'frs';
const DB = `frs_cluster_${randomBytes(4).toString('hex')}`;
const ORG = 'org_0123456789abcdef';
const N = 200;

let cluster: ClusterUnderTest | undefined;
let skipReason = '';
let ch: ClickHouseClient;
let nodes: ClickHouseClient[] = [];

async function rows(client: ClickHouseClient, query: string): Promise<Record<string, unknown>[]> {
  return (await client.query({ query, format: 'JSONEachRow' })).json<Record<string, unknown>>();
}
const count = async (client: ClickHouseClient, query: string) => Number((await rows(client, query))[0]!.n);

const target = {
  table: `${DB}.scores`,
  derived: {
    table: `${DB}.scored_subjects`,
    rows: (records: unknown[]) => scoredSubjectRows(records as AuditRecordEnvelope[]),
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
}, 120_000);

afterAll(async () => {
  if (!cluster) return;
  await ch.command({ query: `DROP DATABASE IF EXISTS ${DB} ON CLUSTER ${CLUSTER}` }).catch(() => undefined);
  await Promise.all([ch, ...nodes].map((c) => c.close()));
  await cluster.release();
}, 120_000);

describe('ClickHouse cluster mode (2 shards x 2 replicas)', () => {
  it('migrates ON CLUSTER and records each migration once for every node', async (ctx) => {
    if (!cluster) return ctx.skip(skipReason);
    const applied = await migrate(ch, DB, () => undefined, CLUSTER);
    expect(applied).toBeGreaterThan(0);
    expect(await migrate(ch, DB, () => undefined, CLUSTER)).toBe(0);
    for (const node of nodes) {
      await node.command({ query: `SYSTEM SYNC REPLICA ${DB}.schema_migrations` });
      expect(await count(node, `SELECT count() AS n FROM ${DB}.schema_migrations`)).toBe(applied);
      expect(
        await rows(node, `SELECT engine FROM system.tables WHERE database = '${DB}' AND name = 'scores'`),
      ).toEqual([{ engine: 'Distributed' }]);
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
            .map((s) => `'${(s.record as AuditRecordEnvelope).score_id}'`)
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
});
