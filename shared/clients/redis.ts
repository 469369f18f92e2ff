import { Redis } from 'ioredis';

export type { Redis };

export interface RedisOptions {
  /** Fail commands fast instead of queueing them while disconnected; the hot path degrades instead. */
  failFast?: boolean;
  connectionName?: string;
}

export function createRedis(url: string, opts: RedisOptions = {}): Redis {
  return new Redis(url, {
    connectionName: opts.connectionName,
    lazyConnect: false,
    enableAutoPipelining: true,
    maxRetriesPerRequest: opts.failFast ? 0 : 20,
    enableOfflineQueue: !opts.failFast,
    connectTimeout: 2_000,
    commandTimeout: opts.failFast ? 250 : undefined,
    retryStrategy: (times) => Math.min(50 * times, 1_000),
  });
}
