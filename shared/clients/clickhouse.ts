import { ClickHouseLogLevel, createClient, type ClickHouseClient } from '@clickhouse/client';
import { readRows, ServerVersionRow } from '../clickhouse/rows.ts';
import type { Config } from '../config.ts';
import type { Resources } from '../lifecycle.ts';
import { failoverClient } from './clickhouse-failover.ts';

export type { ClickHouseClient };

/** A client per node of `url` (a comma list of a cluster's nodes, or one server). */
export function clickHouseNodes(
  url: string,
  opts: { requestTimeoutMs?: number; quiet?: boolean } = {},
): ClickHouseClient[] {
  return url.split(',').map((u) =>
    createClient({
      url: u.trim(),
      ...(opts.quiet ? { log: { level: ClickHouseLogLevel.OFF } } : {}),
      request_timeout: opts.requestTimeoutMs ?? 30_000,
      // ClickHouse 18.16 (the Debian server of the dev machines) rejects some settings newer
      // clients send by default; keep the wire plain so one client speaks to both.
      compression: { request: false, response: false },
      // On a cluster (CLICKHOUSE_CLUSTER) the tables are Distributed: an insert returns once every
      // shard's replica stored its rows, not when they are queued on the node asked, so the sink
      // commits offsets and the CLI reports a withdrawal only past stored rows. One server has no
      // Distributed table and ignores it.
      clickhouse_settings: { insert_distributed_sync: 1 },
    }),
  );
}

/** `url`: one node, or a comma list of a cluster's nodes, asked in order (failoverClient). */
export function createClickHouse(url: string, opts: { requestTimeoutMs?: number } = {}): ClickHouseClient {
  const clients = clickHouseNodes(url, opts);
  return clients.length === 1 ? clients[0]! : failoverClient(clients);
}

/** `major.minor` of the server, read once so callers can use features newer servers have (TTL). */
export async function serverVersion(ch: ClickHouseClient): Promise<[number, number]> {
  const rs = await ch.query({ query: 'SELECT version() AS v', format: 'JSONEachRow' });
  const [row] = await readRows(rs, ServerVersionRow);
  const [major, minor] = (row?.v ?? '0.0').split('.').map(Number);
  return [major ?? 0, minor ?? 0];
}

/**
 * On a cluster (CLICKHOUSE_CLUSTER), a client per node of CLICKHOUSE_URL for reads that must be
 * able to reach every replica (ScoreHistory), each registered to be closed; none on one server.
 */
export function clusterReplicas(
  cfg: Pick<Config, 'CLICKHOUSE_URL' | 'CLICKHOUSE_CLUSTER'>,
  resources: Resources,
): ClickHouseClient[] {
  if (!cfg.CLICKHOUSE_CLUSTER) return [];
  return clickHouseNodes(cfg.CLICKHOUSE_URL).map((c, i) =>
    resources.add('clients', `clickhouse-node-${i + 1}`, c, (n) => n.close()),
  );
}
