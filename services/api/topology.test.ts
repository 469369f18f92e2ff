import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { Cluster } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../shared/config.ts';
import { HealthResponse } from '../../shared/contract/response.ts';
import { mountRoutes } from './http/route.ts';
import { healthRoute } from './routes/health.ts';
import { deploymentTopology } from './topology.ts';

const CLUSTER_ENV = {
  REDIS_CLUSTER_NODES: 'redis-a.internal:7000,redis-b.internal:7001,redis-c.internal:7002',
  BULLMQ_PREFIX: '{frs}',
  KAFKA_BROKERS: 'kafka-1.internal:9092,kafka-2.internal:9092,kafka-3.internal:9092',
  KAFKA_REPLICATION_FACTOR: '3',
  KAFKA_MIN_INSYNC_REPLICAS: '2',
  CLICKHOUSE_URL:
    'http://ch-1.internal:8123,http://ch-2.internal:8123,http://ch-3.internal:8123,http://ch-4.internal:8123',
  CLICKHOUSE_CLUSTER: 'frs',
  CONTROLS_NODE_COUNT: '2',
};

/** Every host and port of the configuration, none of which may reach the public answer. */
const ADDRESSES = /127\.0\.0\.1|localhost|\.internal|:(6379|6380|7000|7001|7002|8123|9092)\b/;

/** GET /v1/health of the health routes alone, served on loopback. */
async function health(env: NodeJS.ProcessEnv): Promise<{ text: string; body: HealthResponse }> {
  const app = express().use(
    mountRoutes([healthRoute], {
      ready: () => true,
      capabilities: () => ({}),
      topology: deploymentTopology(loadConfig(env)),
    }),
  );
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/health`);
    const text = await res.text();
    return { text, body: HealthResponse.parse(JSON.parse(text)) };
  } finally {
    server.close();
  }
}

describe('GET /v1/health topology', () => {
  it('reports the single-node stack as one Redis, one broker, one ClickHouse, and no address', async () => {
    const { text, body } = await health({});
    expect(body.topology).toEqual({
      redis: { mode: 'single', nodes: 1 },
      kafka: { brokers: 1, replication_factor: 1, min_insync_replicas: 1 },
      clickhouse: { nodes: 1 },
      api: { nodes: 1 },
    });
    expect(text).not.toMatch(ADDRESSES);
  });

  it('reports the clusters by their node counts, and no address', async () => {
    const { text, body } = await health(CLUSTER_ENV);
    expect(body.topology).toEqual({
      redis: { mode: 'cluster', nodes: 3 },
      kafka: { brokers: 3, replication_factor: 3, min_insync_replicas: 2 },
      clickhouse: { cluster: 'frs', nodes: 4 },
      api: { nodes: 2 },
    });
    expect(text).not.toMatch(ADDRESSES);
  });

  it('counts a Sentinel group by its Sentinels', async () => {
    const { body } = await health({ REDIS_SENTINELS: 's1:26379,s2:26379,s3:26379,s4:26379,s5:26379' });
    expect(body.topology.redis).toEqual({ mode: 'sentinel', nodes: 5 });
  });

  it('takes a cluster client’s primaries from its slot map once it has one', () => {
    const cfg = loadConfig(CLUSTER_ENV);
    // A client that has read the slot map: five primaries, not the three seeds.
    const known = Object.assign(Object.create(Cluster.prototype) as Cluster, {
      nodes: (role: string) => (role === 'master' ? [1, 2, 3, 4, 5] : []),
    });
    expect(deploymentTopology(cfg, known)().redis).toEqual({ mode: 'cluster', nodes: 5 });
    const unread = Object.assign(Object.create(Cluster.prototype) as Cluster, { nodes: () => [] });
    expect(deploymentTopology(cfg, unread)().redis).toEqual({ mode: 'cluster', nodes: 3 });
  });
});
