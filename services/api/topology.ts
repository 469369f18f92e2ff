/**
 * The topology GET /v1/health reports: how many nodes of each engine this API node runs on, so an
 * operator can tell a single-node deployment from a clustered one without reading its environment.
 * Counts only: the health answer is public, and host names and ports are not for the public.
 */
import { Cluster } from 'ioredis';
import type { RedisClient } from '../../shared/clients/redis.ts';
import type { Config } from '../../shared/config.ts';
import type { DeploymentTopology } from '../../shared/contract/response.ts';

/**
 * From the configuration, and for a Redis Cluster from the client's slot map (read in memory, no
 * command sent): a primary added or lost after the start shows here.
 */
export function deploymentTopology(cfg: Config, redis?: RedisClient): () => DeploymentTopology {
  const kafka = {
    brokers: cfg.KAFKA_BROKERS.length,
    replication_factor: cfg.KAFKA_REPLICATION_FACTOR,
    min_insync_replicas: cfg.KAFKA_MIN_INSYNC_REPLICAS,
  };
  const clickhouse = {
    ...(cfg.CLICKHOUSE_CLUSTER ? { cluster: cfg.CLICKHOUSE_CLUSTER } : {}),
    nodes: cfg.CLICKHOUSE_URL.split(',').length,
  };
  const api = { nodes: cfg.CONTROLS_NODE_COUNT };
  return () => ({ redis: redisTopology(cfg, redis), kafka, clickhouse, api });
}

function redisTopology(cfg: Config, redis: RedisClient | undefined): DeploymentTopology['redis'] {
  if (cfg.REDIS_CLUSTER_NODES) {
    // Before the first slot map the client knows no primary: the seeds stand in.
    const primaries = redis instanceof Cluster ? redis.nodes('master').length : 0;
    return { mode: 'cluster', nodes: primaries || cfg.REDIS_CLUSTER_NODES.length };
  }
  if (cfg.REDIS_SENTINELS) return { mode: 'sentinel', nodes: cfg.REDIS_SENTINELS.length };
  return { mode: 'single', nodes: 1 };
}
