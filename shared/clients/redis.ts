import { Redis, type RedisOptions as IORedisOptions } from 'ioredis';
import type { Logger } from '../logger.ts';

export type { Redis };

export interface RedisOptions {
  /** Fail commands fast instead of queueing them while disconnected; the hot path degrades instead. */
  failFast?: boolean;
  connectionName?: string;
  /** Where connection errors are reported: once per outage, not once per reconnect attempt. */
  log?: Pick<Logger, 'warn' | 'info'>;
  /** BullMQ's blocking connections need `maxRetriesPerRequest: null`. */
  blocking?: boolean;
}

export function createRedis(url: string, opts: RedisOptions = {}): Redis {
  const settings: IORedisOptions = {
    connectionName: opts.connectionName,
    lazyConnect: false,
    enableAutoPipelining: !opts.blocking,
    maxRetriesPerRequest: opts.blocking ? null : opts.failFast ? 0 : 20,
    enableOfflineQueue: !opts.failFast,
    connectTimeout: 2_000,
    commandTimeout: opts.failFast ? 250 : undefined,
    retryStrategy: (times) => Math.min(50 * times, 1_000),
  };
  return reportOutages(new Redis(url, settings), opts);
}

/**
 * Without an `error` listener ioredis prints "Unhandled error event" with a stack on every
 * reconnect attempt (hundreds of lines per outage). This listener logs the first error of an
 * outage and its end, nothing in between.
 */
export function reportOutages(client: Redis, opts: Pick<RedisOptions, 'log' | 'connectionName'>): Redis {
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
