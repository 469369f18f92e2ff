/**
 * With REDIS_SENTINELS the services find the durable Redis through Sentinel: a private primary of
 * the test's own, one Sentinel monitoring it, and the services' ACL users on the primary.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceRedisEnv, type RedisService } from '../../infra/local/redis-users.ts';
import { Controls } from '../../services/api/controls/controls.ts';
import { createRedis, durableRedis, type RedisClient } from '../../shared/clients/redis.ts';
import { loadConfig } from '../../shared/config.ts';
import { createLogger } from '../../shared/logger.ts';
import { creditPeriod, creditsKey } from '../../shared/orgs/keyspace.ts';
import { OrgStore } from '../../shared/orgs/store.ts';
import { PrivateRedis } from '../helpers/private-redis.ts';
import { freePort, waitFor } from '../../infra/harness/processes.ts';

describe('Redis through Sentinel', () => {
  let primary: PrivateRedis;
  let sentinel: ChildProcess;
  let sentinelPort: number;
  const dir = mkdtempSync(join(tmpdir(), 'frs-sentinel-'));
  const clients: RedisClient[] = [];

  beforeAll(async () => {
    primary = await PrivateRedis.start();
    sentinelPort = await freePort();
    const conf = join(dir, 'sentinel.conf');
    writeFileSync(
      conf,
      [
        `port ${sentinelPort}`,
        'bind 127.0.0.1',
        `dir ${dir}`,
        `sentinel monitor frs 127.0.0.1 ${primary.port} 1`,
        'sentinel down-after-milliseconds frs 1000',
      ].join('\n'),
    );
    sentinel = spawn('redis-server', [conf, '--sentinel'], { stdio: 'ignore' });
    const probe = createRedis(`redis://127.0.0.1:${sentinelPort}`, { failFast: true });
    try {
      await waitFor('sentinel knows the primary', async () => {
        const addr = (await probe.call('SENTINEL', 'get-master-addr-by-name', 'frs')) as string[] | null;
        return addr?.[1] === String(primary.port);
      });
    } finally {
      probe.disconnect();
    }
  });

  afterAll(async () => {
    for (const c of clients) c.disconnect();
    if (sentinel.exitCode === null) {
      const exited = once(sentinel, 'exit');
      sentinel.kill('SIGTERM');
      await exited;
    }
    await primary.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  const as = (service: RedisService) => {
    // The URL's host is nowhere: only the Sentinel's answer can lead to the primary.
    const env = {
      ...process.env,
      REDIS_URL: 'redis://127.0.0.1:1',
      REDIS_SENTINELS: `127.0.0.1:${sentinelPort}`,
      REDIS_SENTINEL_NAME: 'frs',
    };
    const c = createRedis(durableRedis(loadConfig({ ...env, ...serviceRedisEnv(service, env) })));
    clients.push(c);
    return c;
  };

  it('creates keys and bills a scoring request on the primary the Sentinel names, as each service user', async () => {
    const store = new OrgStore(as('admin'));
    const org = await store.createOrg({ name: 'sentinel', tier: 'verify' });
    const key = await store.createKey(org.org_id);
    const api = as('api');
    // Before its client is ready a node admits locally; this test is about the shared path.
    if (api.status !== 'ready') await once(api, 'ready');
    const controls = new Controls({ redis: api, log: createLogger('test', 'silent'), nodeCount: 1 });
    const admitted = await controls.admit({ org, keyId: key.key_id }, 'sentinel-1', { subject: {} });
    expect(admitted.kind).toBe('admitted');
    expect(admitted.headers['Idempotency-Status']).toBeUndefined();
    const direct = createRedis(primary.url);
    clients.push(direct);
    expect(await direct.get(creditsKey(org.org_id, creditPeriod(Date.now())))).toBe('1');
  });
});
