import { Gauge, type Registry } from 'prom-client';
import type { RedisClient } from '../../shared/clients/redis.ts';

/** `used_memory` and `maxmemory` from INFO memory (0 maxmemory means unbounded). */
export function parseMemoryInfo(info: string): { used: number; max: number } {
  const field = (name: string) => Number(new RegExp(`^${name}:(\\d+)`, 'm').exec(info)?.[1] ?? NaN);
  return { used: field('used_memory'), max: field('maxmemory') };
}

/**
 * frs_redis_used_memory_bytes and frs_redis_maxmemory_bytes per Redis server the node uses
 * (`durable`: keys, credits, idempotency; `explain`: the explain copies), read with INFO at scrape
 * time on background connections, never on the score path. Alert on used / max: the durable
 * server refuses writes when full.
 */
export function registerRedisMemory(registry: Registry, servers: Record<string, RedisClient>): void {
  const read = async () =>
    Promise.all(
      Object.entries(servers).map(async ([server, redis]) => {
        try {
          // On a cluster the fullest primary: the first to refuse writes.
          const nodes = 'nodes' in redis ? redis.nodes('master') : [redis];
          const infos = await Promise.all(nodes.map(async (n) => parseMemoryInfo(await n.info('memory'))));
          return { server, ...infos.reduce((a, b) => (b.used > a.used ? b : a)) };
        } catch {
          return undefined;
        }
      }),
    );
  let pending: ReturnType<typeof read> | undefined;
  // One INFO per server per scrape, shared by both gauges.
  const snapshot = () => (pending ??= read().finally(() => setTimeout(() => (pending = undefined), 1_000)));
  const gauge = (name: string, help: string, pick: (m: { used: number; max: number }) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['server'],
      registers: [registry],
      async collect() {
        this.reset();
        for (const m of await snapshot())
          if (m && Number.isFinite(pick(m))) this.set({ server: m.server }, pick(m));
      },
    });
  gauge('frs_redis_used_memory_bytes', 'Memory the Redis server uses (INFO used_memory)', (m) => m.used);
  gauge('frs_redis_maxmemory_bytes', 'The Redis server maxmemory; 0 means unbounded', (m) => m.max);
}
