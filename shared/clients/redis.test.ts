import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config.ts';
import { durableRedis } from './redis.ts';

const URL_AS_API = 'redis://frs-api:secret@127.0.0.1:6379';

describe('the durable Redis topology, chosen by configuration', () => {
  it('is one server when neither cluster nor sentinels are set', () => {
    expect(durableRedis(loadConfig({ REDIS_URL: URL_AS_API }))).toEqual({ url: URL_AS_API });
  });

  it('is a cluster of the seed nodes, logging in with the URL', () => {
    const cfg = loadConfig({
      REDIS_URL: URL_AS_API,
      REDIS_CLUSTER_NODES: '10.0.0.1:7000, redis-2:7001,[::1]:7002',
      BULLMQ_PREFIX: '{frs}',
    });
    expect(durableRedis(cfg)).toEqual({
      url: URL_AS_API,
      cluster: [
        { host: '10.0.0.1', port: 7000 },
        { host: 'redis-2', port: 7001 },
        { host: '::1', port: 7002 },
      ],
    });
  });

  it('is a Sentinel group, named or mymaster', () => {
    const sentinels = { REDIS_URL: URL_AS_API, REDIS_SENTINELS: 's1:26379,s2:26379' };
    expect(durableRedis(loadConfig(sentinels))).toEqual({
      url: URL_AS_API,
      sentinels: [
        { host: 's1', port: 26379 },
        { host: 's2', port: 26379 },
      ],
      sentinelName: 'mymaster',
    });
    expect(durableRedis(loadConfig({ ...sentinels, REDIS_SENTINEL_NAME: 'frs' })).sentinelName).toBe('frs');
  });

  it('keeps a ledger of its own on one server', () => {
    const cfg = loadConfig({ REDIS_CLUSTER_NODES: '127.0.0.1:7000', BULLMQ_PREFIX: '{frs}' });
    expect(durableRedis(cfg, 'redis://127.0.0.1:6390')).toEqual({ url: 'redis://127.0.0.1:6390' });
  });

  it('refuses what would fail later: an untagged queue prefix on a cluster, both topologies, bad nodes', () => {
    expect(() => loadConfig({ REDIS_CLUSTER_NODES: '127.0.0.1:7000' })).toThrow(/BULLMQ_PREFIX: .*hash tag/);
    expect(() =>
      loadConfig({
        REDIS_CLUSTER_NODES: '127.0.0.1:7000',
        REDIS_SENTINELS: 's:26379',
        BULLMQ_PREFIX: '{frs}',
      }),
    ).toThrow(/not both/);
    expect(() => loadConfig({ REDIS_CLUSTER_NODES: '127.0.0.1', BULLMQ_PREFIX: '{frs}' })).toThrow(
      /host:port/,
    );
    expect(() => loadConfig({ BULLMQ_PREFIX: '{frs' })).toThrow(/BULLMQ_PREFIX/);
    expect(loadConfig({ BULLMQ_PREFIX: '{frs-eu}' }).BULLMQ_PREFIX).toBe('{frs-eu}');
  });
});
