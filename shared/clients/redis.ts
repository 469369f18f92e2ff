import { Cluster, Redis, type RedisOptions as IORedisOptions } from 'ioredis';
import type { Config } from '../config.ts';
import type { Logger } from '../logger.ts';

/**
 * A client of the durable Redis, whichever topology the deployment runs: one server, a Sentinel
 * group (a `Redis` that follows the primary) or a Redis Cluster. Code that takes this type issues
 * only commands whose keys share one hash slot (docs/scale-out.md), so it runs on all three.
 */
export type RedisClient = Redis | Cluster;

/** One server: the explain cache, and every client built from a URL alone. */
export type { Redis };

export interface HostPort {
  host: string;
  port: number;
}

/**
 * Where a Redis is and how to log in: the URL carries the ACL user, password, TLS (`rediss:`) and
 * database; `cluster` or `sentinels` (with `sentinelName`) replace its host and port.
 */
export interface RedisTarget {
  url: string;
  cluster?: readonly HostPort[];
  sentinels?: readonly HostPort[];
  sentinelName?: string;
}

export interface RedisOptions {
  /** Fail commands fast instead of queueing them while disconnected; the hot path degrades instead. */
  failFast?: boolean;
  connectionName?: string;
  /** Where connection errors are reported: once per outage, not once per reconnect attempt. */
  log?: Pick<Logger, 'warn' | 'info'>;
  /** BullMQ's blocking connections need `maxRetriesPerRequest: null`. */
  blocking?: boolean;
}

/**
 * The durable Redis of keys, credits, snapshots and queues, in the topology the configuration
 * chooses (REDIS_CLUSTER_NODES, REDIS_SENTINELS, else REDIS_URL alone). `url` is the URL the
 * service logs in with (its ACL user): the service's REDIS_URL, or LEDGER_REDIS_URL for a ledger
 * kept on a server of its own, which is always a single server.
 */
export function durableRedis(cfg: Config, url = cfg.REDIS_URL): RedisTarget {
  if (url !== cfg.REDIS_URL) return { url };
  if (cfg.REDIS_CLUSTER_NODES) return { url, cluster: cfg.REDIS_CLUSTER_NODES };
  if (cfg.REDIS_SENTINELS)
    return { url, sentinels: cfg.REDIS_SENTINELS, sentinelName: cfg.REDIS_SENTINEL_NAME ?? 'mymaster' };
  return { url };
}

/** A URL is one server; a target may be a Sentinel group or a cluster. */
export function createRedis(url: string, opts?: RedisOptions): Redis;
export function createRedis(target: RedisTarget, opts?: RedisOptions): RedisClient;
export function createRedis(target: string | RedisTarget, opts: RedisOptions = {}): RedisClient {
  const t = typeof target === 'string' ? { url: target } : target;
  const settings: IORedisOptions = {
    connectionName: opts.connectionName,
    lazyConnect: false,
    maxRetriesPerRequest: opts.blocking ? null : opts.failFast ? 0 : 20,
    enableOfflineQueue: !opts.failFast,
    connectTimeout: 2_000,
    commandTimeout: opts.failFast ? 250 : undefined,
    retryStrategy: (times) => Math.min(50 * times, 1_000),
  };
  const autoPipelining = !opts.blocking;
  if (t.cluster) {
    const u = new URL(t.url);
    const cluster = new Cluster([...t.cluster], {
      enableAutoPipelining: autoPipelining,
      enableOfflineQueue: !opts.failFast,
      // Every command goes to the primary of its slot: reads of credits and keys must not lag.
      scaleReads: 'master',
      clusterRetryStrategy: (times) => Math.min(50 * times, 1_000),
      // A failover is a few seconds of MOVED/CLUSTERDOWN; a fail-fast client lets the hot path degrade.
      maxRedirections: opts.failFast ? 3 : 16,
      redisOptions: { ...settings, ...credentials(u) },
      slotsRefreshTimeout: 2_000,
      // Re-read the slot map every second: after a primary dies, its promoted replica is found
      // within a second of the promotion (ioredis would otherwise keep the dead node's slots
      // until a redirection, which a node that no longer answers never sends).
      slotsRefreshInterval: 1_000,
    });
    return reportOutages(cluster, opts);
  }
  if (t.sentinels) {
    const u = new URL(t.url);
    return reportOutages(
      new Redis({
        ...settings,
        ...credentials(u),
        enableAutoPipelining: autoPipelining,
        sentinels: [...t.sentinels],
        name: t.sentinelName ?? 'mymaster',
        sentinelRetryStrategy: (times) => Math.min(50 * times, 1_000),
      }),
      opts,
    );
  }
  return reportOutages(new Redis(t.url, { ...settings, enableAutoPipelining: autoPipelining }), opts);
}

/** The ACL user, password, TLS and database of a `redis(s)://` URL, for clients built from options. */
function credentials(u: URL): IORedisOptions {
  const db = Number(u.pathname.slice(1) || '0');
  return {
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    ...(u.protocol === 'rediss:' ? { tls: {} } : {}),
    ...(db > 0 ? { db } : {}),
  };
}

/**
 * Without an `error` listener ioredis prints "Unhandled error event" with a stack on every
 * reconnect attempt (hundreds of lines per outage). This listener logs the first error of an
 * outage and its end, nothing in between.
 */
export function reportOutages<R extends RedisClient>(
  client: R,
  opts: Pick<RedisOptions, 'log' | 'connectionName'>,
): R {
  let down = false;
  const name = opts.connectionName ?? 'redis';
  client.on('error', (err: Error) => {
    if (down) return;
    down = true;
    opts.log?.warn({ connection: name, err: err.message }, 'redis unreachable; reconnecting');
  });
  client.on('ready', () => {
    if (!down) return;
    down = false;
    opts.log?.info({ connection: name }, 'redis reachable again');
  });
  return client;
}
