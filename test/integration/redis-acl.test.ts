/**
 * The Redis ACL of the compose deployment (infra/ops/redis/users.acl, rendered by the same
 * script the container runs): the API and the refresher work under their users, and neither
 * can mint API keys; a client without a password can do nothing.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createConnection } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LedgerVotes } from '../../shared/capabilities/ledger-votes.ts';
import { newOutcomeId } from '../../shared/ids.ts';
import { OrgStore } from '../../shared/orgs/store.ts';
import { digestKey } from '../../shared/orgs/keyspace.ts';
import { scoreCall } from '../helpers/fixtures.ts';
import { scrape, sample } from '../helpers/metrics.ts';
import {
  freePort,
  spawnService,
  startApi,
  waitFor,
  type ApiNode,
  type Service,
} from '../helpers/processes.ts';

const passwords = {
  FRS_REDIS_API_PASSWORD: randomBytes(16).toString('hex'),
  FRS_REDIS_REFRESHER_PASSWORD: randomBytes(16).toString('hex'),
  FRS_REDIS_ADMIN_PASSWORD: randomBytes(16).toString('hex'),
  FRS_REDIS_PORTAL_PASSWORD: randomBytes(16).toString('hex'),
  FRS_REDIS_SINK_PASSWORD: randomBytes(16).toString('hex'),
};

describe('Redis ACL users of the compose deployment', () => {
  const dir = mkdtempSync(join(tmpdir(), 'frs-acl-'));
  let server: ChildProcess;
  let port: number;
  const url = (user: string, password: string) => `redis://${user}:${password}@127.0.0.1:${port}`;
  const apiUrl = () => url('frs-api', passwords.FRS_REDIS_API_PASSWORD);
  const clients: Redis[] = [];
  const connect = (u: string) => {
    const c = new Redis(u, { maxRetriesPerRequest: 1, lazyConnect: false });
    clients.push(c);
    return c;
  };
  let node: ApiNode | undefined;
  let refresher: Service | undefined;

  beforeAll(async () => {
    const acl = execFileSync('sh', ['infra/ops/redis/render-acl.sh', 'infra/ops/redis/users.acl'], {
      env: { ...process.env, ...passwords },
      encoding: 'utf8',
    });
    writeFileSync(join(dir, 'users.acl'), acl, { mode: 0o600 });
    port = await freePort();
    server = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--dir',
        dir,
        '--save',
        '',
        '--aclfile',
        join(dir, 'users.acl'),
      ],
      { stdio: 'ignore' },
    );
    await waitFor('redis with the ACL file', async () => {
      const c = new Redis(url('healthcheck', 'any'), { maxRetriesPerRequest: 0, lazyConnect: true });
      c.on('error', () => undefined); // refused until the server listens; the connect() below says so
      try {
        await c.connect();
        return (await c.ping()) === 'PONG';
      } finally {
        c.disconnect();
      }
    });
  });

  afterAll(async () => {
    await refresher?.stop();
    await node?.stop();
    for (const c of clients) c.disconnect();
    if (server && server.exitCode === null) {
      const exited = once(server, 'exit');
      server.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a client without a password and keys written by anyone but the admin user', async () => {
    // A raw connection, as any process on the network could open one.
    const socket = createConnection({ host: '127.0.0.1', port });
    await once(socket, 'connect');
    socket.write('GET frs:org:x\r\n');
    const [reply] = (await once(socket, 'data')) as [Buffer];
    socket.destroy();
    expect(reply.toString()).toMatch(/^-NOAUTH/);

    const api = connect(apiUrl());
    await expect(api.set(digestKey('f'.repeat(64)), 'org_x')).rejects.toThrow(/NOPERM/);
    await expect(api.hset('frs:org:org_x', 'tier', 'bureau')).rejects.toThrow(/NOPERM/);
    // Snapshots are the refresher's to build: a node only reads them.
    await expect(api.set('frs:cap:current:ip_tor_exit', 'x')).rejects.toThrow(/NOPERM/);
    await expect(api.get(digestKey('f'.repeat(64)))).resolves.toBeNull();
    await expect(api.flushall()).rejects.toThrow(/NOPERM/);
    await expect(api.config('GET', 'dir')).rejects.toThrow(/NOPERM/);

    const refresherClient = connect(url('frs-refresher', passwords.FRS_REDIS_REFRESHER_PASSWORD));
    await expect(refresherClient.get(digestKey('f'.repeat(64)))).rejects.toThrow(/NOPERM/);
    await expect(refresherClient.set('frs:org:org_x', '1')).rejects.toThrow(/NOPERM/);
  });

  it("the sink's ledger learner records outcome reports, and can touch nothing else", async () => {
    const sink = connect(url('frs-sink', passwords.FRS_REDIS_SINK_PASSWORD));
    const votes = new LedgerVotes(sink, 'frs:cap', 10);
    await expect(votes.takeAllowance('org_a', Date.now(), 1)).resolves.toBe(true);
    await expect(
      votes.vote('0'.repeat(32), { orgId: 'org_a', outcomeId: newOutcomeId(), state: 't' }, 'report'),
    ).resolves.toBe(true);
    await expect(sink.set(digestKey('f'.repeat(64)), 'org_x')).rejects.toThrow(/NOPERM/);
    await expect(sink.get('frs:org:org_x')).rejects.toThrow(/NOPERM/);
    await expect(sink.set('frs:cap:ip_tor_exit:current', 'x')).rejects.toThrow(/NOPERM/);
  });

  it('the API node scores with a key the admin user made, and the refresher runs its jobs', async () => {
    const store = new OrgStore(connect(url('frs-admin', passwords.FRS_REDIS_ADMIN_PASSWORD)));
    const org = await store.createOrg({ name: 'acl-test', tier: 'verify' });
    const { api_key: apiKey } = await store.createKey(org.org_id);

    // The default prefixes: the ACL grants exactly those.
    node = await startApi({ REDIS_URL: apiUrl(), NODE_ID: `acl-${port}` });
    // With an Idempotency-Key: the controls script writes the entry and the day's count too.
    const res = await scoreCall(
      node.url,
      apiKey,
      { subject: { ip_address: '192.0.2.1' } },
      { 'idempotency-key': `acl-${port}` },
    );
    expect(res.status).toBe(200);
    const again = await scoreCall(
      node.url,
      apiKey,
      { subject: { ip_address: '192.0.2.1' } },
      { 'idempotency-key': `acl-${port}` },
    );
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');

    const metricsPort = await freePort();
    refresher = spawnService('services/refresher/main.ts', {
      REDIS_URL: url('frs-refresher', passwords.FRS_REDIS_REFRESHER_PASSWORD),
      REFRESHER_METRICS_PORT: String(metricsPort),
    });
    const refresherUrl = `http://127.0.0.1:${metricsPort}`;
    const m = await waitFor(
      'a refresh under the refresher user',
      async () => {
        if (refresher!.proc.exitCode !== null) throw new Error(`refresher exited: ${refresher!.output()}`);
        const s = await scrape(refresherUrl);
        return (sample(s, 'frs_refresher_runs_total', { task: 'ip_tor_exit' }) ?? 0) >= 1 ? s : undefined;
      },
      90_000,
      500,
    );
    expect(sample(m, 'frs_refresher_failures_total', { task: 'ip_tor_exit' })).toBe(0);
    expect((await fetch(`${refresherUrl}/readyz`)).status).toBe(200);
    expect(refresher.output()).not.toMatch(/NOPERM/);
    expect(node.output()).not.toMatch(/NOPERM/);
  });
});
