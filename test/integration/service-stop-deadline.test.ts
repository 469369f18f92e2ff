import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { API_STOP_DEADLINE_MS } from '../../services/api/node.ts';
import { SINK_STOP_DEADLINE_MS } from '../../services/audit-sink/service.ts';
import { REFRESHER_STOP_DEADLINE_MS } from '../../services/refresher/service.ts';
import { PrivateRedis } from '../helpers/private-redis.ts';
import { freePort, spawnService, waitFor, type Service } from '../../infra/harness/processes.ts';

/** What a loaded two-core machine may add between the signal and the exit we observe. */
const SLACK_MS = 5_000;

/** A loopback address where nothing listens: connections are refused at once, like a dead server. */
const deadUrl = async (scheme: string) => `${scheme}://127.0.0.1:${await freePort()}`;

async function sigtermExit(svc: Service): Promise<{ code: number | null; ms: number }> {
  const exited = once(svc.proc, 'exit') as Promise<[number | null]>;
  const t0 = Date.now();
  svc.proc.kill('SIGTERM');
  const [code] = await exited;
  return { code, ms: Date.now() - t0 };
}

describe('every service stops within its deadline, whatever is unreachable', () => {
  it('refresher: Redis goes away while the worker is running, SIGTERM still exits', async () => {
    const redis = await PrivateRedis.start();
    const svc = spawnService('services/refresher/main.ts', {
      LOG_LEVEL: 'info',
      REDIS_URL: redis.url,
      // A queue of its own where the refresher's Redis user may write (BULLMQ_PREFIX frs-<name>).
      BULLMQ_PREFIX: `frs-deadline${Date.now()}`,
      CLICKHOUSE_URL: await deadUrl('http'),
    });
    try {
      await waitFor('refresher running', async () => svc.output().includes('refresher running'), 60_000);
      await redis.stop();
      // Let the worker notice the outage and start reconnecting, the state that used to hang.
      await waitFor('outage seen', async () => svc.output().includes('unreachable'), 30_000);
      const { code, ms } = await sigtermExit(svc);
      expect(ms).toBeLessThan(REFRESHER_STOP_DEADLINE_MS + SLACK_MS);
      expect(code).not.toBeNull();
      // One line per outage and connection, not one stack trace per reconnect attempt.
      expect(svc.output()).not.toContain('Unhandled error event');
    } finally {
      await svc.stop('SIGKILL');
      await redis.destroy();
    }
  });

  it('audit sink: Kafka and ClickHouse unreachable, SIGTERM exits', async () => {
    const svc = spawnService('services/audit-sink/main.ts', {
      LOG_LEVEL: 'info',
      KAFKA_BROKERS: `127.0.0.1:${await freePort()}`,
      CLICKHOUSE_URL: await deadUrl('http'),
      AUDIT_SINK_GROUP: `deadline-${Date.now()}`,
    });
    try {
      // The consumer keeps retrying its connection to the dead broker: stop it inside that loop.
      await waitFor('sink retrying', async () => svc.output().includes('audit sink connecting'), 30_000);
      const { code, ms } = await sigtermExit(svc);
      expect(ms).toBeLessThan(SINK_STOP_DEADLINE_MS + SLACK_MS);
      expect(code).not.toBeNull();
    } finally {
      await svc.stop('SIGKILL');
    }
  });

  it('API node: Redis goes away, Kafka and ClickHouse unreachable, SIGTERM exits', async () => {
    const redis = await PrivateRedis.start();
    const svc = spawnService('services/api/main.ts', {
      LOG_LEVEL: 'info',
      PORT: String(await freePort()),
      REDIS_URL: redis.url,
      KAFKA_BROKERS: `127.0.0.1:${await freePort()}`,
      CLICKHOUSE_URL: await deadUrl('http'),
      EXPLAIN_REDIS_URL: await deadUrl('redis'),
      CAPABILITY_KEY_PREFIX: `frs:cap:deadline${Date.now()}`,
    });
    try {
      await waitFor('api listening', async () => svc.output().includes('api listening'), 60_000);
      await redis.stop();
      const { code, ms } = await sigtermExit(svc);
      expect(ms).toBeLessThan(API_STOP_DEADLINE_MS + SLACK_MS);
      expect(code).not.toBeNull();
      expect(svc.output()).not.toContain('Unhandled error event');
    } finally {
      await svc.stop('SIGKILL');
      await redis.destroy();
    }
  });
});
