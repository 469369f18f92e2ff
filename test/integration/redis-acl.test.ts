/**
 * The Redis ACL of the compose deployment (infra/ops/redis/users.acl and explain-users.acl,
 * rendered by the same script the containers run, default user off): on two private servers,
 * each user can do what its service does (the real store classes, a real API node and
 * refresher) and nothing outside its key patterns; a client without a password can do nothing.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createConnection } from 'node:net';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { explainKey } from '../../shared/audit/explain-cache.ts';
import { KeyUsage } from '../../services/api/key-usage.ts';
import { createLogger } from '../../shared/logger.ts';
import { LedgerVotes } from '../../shared/capabilities/ledger-votes.ts';
import { CorrectionStore, loadCorrections, parseCorrection } from '../../shared/capabilities/corrections.ts';
import { newOutcomeId, newScoreId } from '../../shared/ids.ts';
import { digestKey } from '../../shared/orgs/keyspace.ts';
import { OrgStore } from '../../shared/orgs/store.ts';
import { OrgListStore } from '../../shared/orgs/lists-store.ts';
import { LISTS_CHANGED_CHANNEL, listKey, ORGS_CHANGED_CHANNEL } from '../../shared/orgs/keyspace.ts';
import {
  dailyUsageKey,
  legacyUserByEmailKey,
  recentScoresKey,
  sessionKey,
  userByEmailKey,
} from '../../shared/portal/keyspace.ts';
import { ActivityWriter } from '../../services/audit-sink/activity.ts';
import { ActivityStore } from '../../services/portal/activity.ts';
import { fieldKey, usedKey } from '../../shared/capabilities/phone-live-lookup/cache.ts';
import { AuditRecordEnvelope } from '../../shared/audit/record.ts';

import { UserStore } from '../../shared/portal/users.ts';
import { scoreCall } from '../../infra/harness/fixtures.ts';
import { scrape, sample } from '../helpers/metrics.ts';
import {
  freePort,
  spawnService,
  startApi,
  waitFor,
  type ApiNode,
  type Service,
} from '../../infra/harness/processes.ts';

const hex = () => randomBytes(16).toString('hex');
const passwords = {
  FRS_REDIS_API_PASSWORD: hex(),
  FRS_REDIS_REFRESHER_PASSWORD: hex(),
  FRS_REDIS_ADMIN_PASSWORD: hex(),
  FRS_REDIS_PORTAL_PASSWORD: hex(),
  FRS_REDIS_SINK_PASSWORD: hex(),
  FRS_REDIS_EXPLAIN_PASSWORD: hex(),
  FRS_REDIS_EXPLAIN_PORTAL_PASSWORD: hex(),
};
const NOPERM = /NOPERM/;
const month = new Date().toISOString().slice(0, 7);

/** A redis-server on a free port with `template` rendered as its ACL file, as the container starts it. */
async function aclServer(dir: string, template: string): Promise<{ port: number; proc: ChildProcess }> {
  const acl = execFileSync('sh', ['infra/ops/redis/render-acl.sh', template], {
    env: { ...process.env, ...passwords },
    encoding: 'utf8',
  });
  const file = join(dir, `${template.split('/').at(-1)}`);
  writeFileSync(file, acl, { mode: 0o600 });
  const port = await freePort();
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--aclfile', file];
  const proc = spawn('redis-server', args, { stdio: 'ignore' });
  await waitFor(`redis with ${template}`, async () => {
    // The health check's user may only PING: no INFO for ioredis's ready check.
    const c = new Redis(`redis://healthcheck:any@127.0.0.1:${port}`, {
      maxRetriesPerRequest: 0,
      lazyConnect: true,
      enableReadyCheck: false,
    });
    c.on('error', () => undefined); // refused until the server listens; the connect() below says so
    try {
      await c.connect();
      return (await c.ping()) === 'PONG';
    } finally {
      c.disconnect();
    }
  });
  return { port, proc };
}

/** A score record of `org` as the sink has it once decoded (fixture). */
function activityRecord(org: string): AuditRecordEnvelope {
  const id = newScoreId(Date.now());
  return AuditRecordEnvelope.parse({
    v: 1,
    score_id: id,
    org_id: org,
    tier: 'assess',
    scored_at_ms: Date.now(),
    node_id: 'n1',
    latency_ms: 3,
    request: { subject: { ip_address: '81.2.69.142' } },
    response: {
      score_id: id,
      score_version: '2026.12.3',
      score: 12,
      band: 'minimal',
      recommended_action: 'allow',
      degraded_sources: [],
    },
    evidence: {},
  });
}

describe('Redis ACL users of the compose deployment', () => {
  const dir = mkdtempSync(join(tmpdir(), 'frs-acl-'));
  const servers: ChildProcess[] = [];
  let port: number;
  let cachePort: number;
  const url = (user: string, password: string, p = port) => `redis://${user}:${password}@127.0.0.1:${p}`;
  const apiUrl = () => url('frs-api', passwords.FRS_REDIS_API_PASSWORD);
  const clients: Redis[] = [];
  const connect = (u: string) => {
    const c = new Redis(u, { maxRetriesPerRequest: 1, lazyConnect: false });
    clients.push(c);
    return c;
  };
  const as = {
    api: () => connect(apiUrl()),
    refresher: () => connect(url('frs-refresher', passwords.FRS_REDIS_REFRESHER_PASSWORD)),
    sink: () => connect(url('frs-sink', passwords.FRS_REDIS_SINK_PASSWORD)),
    admin: () => connect(url('frs-admin', passwords.FRS_REDIS_ADMIN_PASSWORD)),
    portal: () => connect(url('frs-portal', passwords.FRS_REDIS_PORTAL_PASSWORD)),
    apiCache: () => connect(url('frs-api', passwords.FRS_REDIS_EXPLAIN_PASSWORD, cachePort)),
    portalCache: () => connect(url('frs-portal', passwords.FRS_REDIS_EXPLAIN_PORTAL_PASSWORD, cachePort)),
  };
  let node: ApiNode | undefined;
  let refresher: Service | undefined;

  beforeAll(async () => {
    const durable = await aclServer(dir, 'infra/ops/redis/users.acl');
    const cache = await aclServer(dir, 'infra/ops/redis/explain-users.acl');
    servers.push(durable.proc, cache.proc);
    port = durable.port;
    cachePort = cache.port;
    // As an operator does once (and npm start on every start): the API may not SCAN for keys.
    await new OrgStore(as.admin()).indexKeys();
  });

  afterAll(async () => {
    await refresher?.stop();
    await node?.stop();
    for (const c of clients) c.disconnect();
    for (const server of servers.filter((s) => s.exitCode === null)) {
      const exited = once(server, 'exit');
      server.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  });

  /** An organisation and a key, made by the one user allowed to, as the admin CLI does. */
  async function orgWithKey() {
    const store = new OrgStore(as.admin());
    const org = await store.createOrg({ name: 'acl-test', tier: 'verify' });
    return { org, ...(await store.createKey(org.org_id)) };
  }

  it('refuses a client without a password, and dangerous commands to every user', async () => {
    for (const p of [port, cachePort]) {
      // A raw connection, as any process on the network could open one.
      const socket = createConnection({ host: '127.0.0.1', port: p });
      await once(socket, 'connect');
      socket.write('GET frs:org:x\r\n');
      const [reply] = (await once(socket, 'data')) as [Buffer];
      socket.destroy();
      expect(reply.toString()).toMatch(/^-NOAUTH/);
    }
    for (const c of Object.values(as).map((f) => f())) {
      await expect(c.flushall()).rejects.toThrow(NOPERM);
      await expect(c.config('GET', 'dir')).rejects.toThrow(NOPERM);
      await expect(c.keys('*')).rejects.toThrow(NOPERM);
      await expect(c.call('FUNCTION', 'FLUSH')).rejects.toThrow(NOPERM);
      // Key names outside a user's patterns: client-side caching's broadcast and MONITOR.
      await expect(c.call('CLIENT', 'TRACKING', 'on', 'BCAST')).rejects.toThrow(NOPERM);
      await expect(c.call('CLIENT', 'LIST')).rejects.toThrow(NOPERM);
      await expect(c.call('MONITOR')).rejects.toThrow(NOPERM);
    }
    // SCAN lists every key whatever the patterns: only the admin CLI has it (its migrations).
    for (const [user, c] of Object.entries(as).filter(([u]) => u !== 'admin'))
      await expect(c().scan('0'), user).rejects.toThrow(NOPERM);
  });

  it('no key name carries an email: users by email are named by digest, old names are migrated', async () => {
    const { org } = await orgWithKey();
    const admin = as.admin();
    const users = new UserStore(admin);
    const email = `staff-${hex()}@example.test`;
    const { user } = await users.create(org.org_id, email);
    expect(userByEmailKey(email)).toMatch(/^frs:portal:email:[0-9a-f]{64}$/);
    await expect(admin.get(userByEmailKey(email))).resolves.toBe(user.user_id);
    await expect(admin.exists(legacyUserByEmailKey(email))).resolves.toBe(0);
    // A user made before: its key named by address is read, then renamed by the migration.
    const old = `old-${hex()}@example.test`;
    const { user: oldUser } = await users.create(org.org_id, old);
    await admin.del(userByEmailKey(old));
    await admin.set(legacyUserByEmailKey(old), oldUser.user_id);
    expect((await new UserStore(as.portal()).byEmail(old))?.user_id).toBe(oldUser.user_id);
    await expect(users.create(org.org_id, old)).rejects.toThrow('already exists');
    expect(await users.migrateEmailKeys()).toBeGreaterThanOrEqual(1);
    await expect(admin.exists(legacyUserByEmailKey(old))).resolves.toBe(0);
    expect((await new UserStore(as.portal()).byEmail(old))?.user_id).toBe(oldUser.user_id);
    const [, names] = await admin.scan('0', 'MATCH', 'frs:portal:email:*', 'COUNT', 10_000);
    expect(names.filter((n) => n.includes('@'))).toEqual([]);
  });

  it('docs/security.md lists both ACL files exactly, token for token', () => {
    /** Each user line (and selector) of an ACL file: login, key patterns, channels, commands. */
    const fromAcl = (file: string) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .filter((l) => l.startsWith('user '))
        .flatMap((line) => {
          const selector = /\((.*)\)/.exec(line);
          const tokens = (selector ? line.slice(0, selector.index) : line).trim().split(/\s+/);
          const name = tokens[1]!;
          const rest = tokens.slice(2);
          const row = {
            user: name,
            login: rest
              .filter((t) => ['on', 'off', 'nopass'].includes(t) || t.startsWith('>'))
              .map((t) => (t.startsWith('>') ? 'password' : t)),
            keys: rest.filter((t) => t.includes('~')),
            channels: rest.filter((t) => t === 'resetchannels' || t.startsWith('&')),
            commands: rest.filter(
              (t) =>
                !t.includes('~') &&
                !t.startsWith('&') &&
                !t.startsWith('>') &&
                !['on', 'off', 'nopass', 'resetchannels'].includes(t),
            ),
          };
          if (!selector) return [row];
          const inner = selector[1]!.trim().split(/\s+/);
          const channel = (t: string) => t === 'resetchannels' || t.startsWith('&');
          return [
            row,
            {
              user: `${name} (selector)`,
              login: [],
              keys: inner.filter((t) => t.includes('~')),
              channels: inner.filter(channel),
              commands: inner.filter((t) => !t.includes('~') && !channel(t)),
            },
          ];
        });
    /** The rows of the table under `heading` in docs/security.md's "The rules, exactly". */
    const doc = readFileSync('docs/security.md', 'utf8');
    const section = doc.slice(doc.indexOf('### The rules, exactly'), doc.indexOf('### What no user may do'));
    const fromDoc = (heading: string) => {
      const rows = section.slice(section.indexOf(heading)).split('\n\n')[1]!.split('\n').slice(2);
      return rows.map((r) => {
        const cells = r
          .split(/(?<!\\)\|/)
          .slice(1, -1)
          .map((c) => [...c.matchAll(/`([^`]+)`/g)].map((m) => m[1]!.replaceAll('\\|', '|')));
        return {
          user: cells[0]![0]!,
          login: cells[1]!,
          keys: cells[2]!,
          channels: cells[3]!,
          commands: cells[4]!,
        };
      });
    };
    expect(fromDoc('Durable Redis:')).toEqual(fromAcl('infra/ops/redis/users.acl'));
    expect(fromDoc('Explain cache Redis:')).toEqual(fromAcl('infra/ops/redis/explain-users.acl'));
  });

  it('API nodes read keys and snapshots, write controls and key last-used times, and nothing else', async () => {
    const { org, key_id: keyId } = await orgWithKey();
    const api = as.api();
    // The key replica and the hot path read organisations and digests; they cannot mint or change them.
    expect((await new OrgStore(api).activeKeys()).some((k) => k.key.key_id === keyId)).toBe(true);
    await expect(api.set(digestKey('f'.repeat(64)), 'org_x')).rejects.toThrow(NOPERM);
    await expect(api.hset(`frs:org:${org.org_id}`, 'tier', 'bureau')).rejects.toThrow(NOPERM);
    await expect(api.sadd(`frs:org:${org.org_id}:keys`, 'key_x')).rejects.toThrow(NOPERM);
    // Key last-used times (the portal's Keys page): the API's KeyUsage flushes them, ZADD GT.
    const usage = new KeyUsage(api, createLogger('test', 'silent'));
    usage.touch(org.org_id, keyId, 1_234);
    await usage.flush();
    // Read back by the portal, which shows them.
    expect(await new OrgStore(as.portal()).keysLastUsed(org.org_id)).toEqual(new Map([[keyId, 1_234]]));
    // Snapshots and the ledger are read, built only by the refresher and the sink.
    await expect(api.get('frs:cap:current:ip_tor_exit')).resolves.toBeNull();
    await expect(api.set('frs:cap:current:ip_tor_exit', 'x')).rejects.toThrow(NOPERM);
    await expect(api.hmget('frs:cap:ledger-votes:abc', 'org_a')).resolves.toEqual([null]);
    await expect(api.hset('frs:cap:ledger-votes:abc', 'org_a', '1')).rejects.toThrow(NOPERM);
    // The outcome reports the ledger used to keep are gone from the rules.
    await expect(api.hmget('frs:cap:ledger-reports:counts', 'abc')).rejects.toThrow(NOPERM);
    // Portal data, and the queue of the refresher, are not the API's.
    await expect(api.get(sessionKey('s'))).rejects.toThrow(NOPERM);
    await expect(api.get(userByEmailKey('a@b.example'))).rejects.toThrow(NOPERM);
    await expect(api.lrange('frs:refresher:wait', 0, -1)).rejects.toThrow(NOPERM);
    await expect(api.publish('frs:cap:announce', 'ip_tor_exit')).rejects.toThrow(NOPERM);
  });

  it('the portal manages its organisation’s keys and its own data, and nothing else', async () => {
    const { org } = await orgWithKey();
    const users = new UserStore(as.admin());
    const { user, setupToken } = await users.create(org.org_id, `staff-${hex()}@example.test`);
    const portal = as.portal();
    const store = new OrgStore(portal);
    // Sign-up, the Keys page (create, list with last-used times, revoke) and the usage panel.
    expect(await new UserStore(portal).completeSetup(setupToken, 'correct horse battery')).toMatchObject({
      user_id: user.user_id,
    });
    const created = await store.createKey(org.org_id, 'from the portal');
    expect((await store.listKeys(org.org_id)).map((k) => k.key_id)).toContain(created.key_id);
    await expect(store.keysLastUsed(org.org_id)).resolves.toEqual(new Map());
    await expect(store.revokeKey(created.key_id)).resolves.toBe(true);
    await expect(store.creditsUsed(org.org_id)).resolves.toMatchObject({ used: 0 });
    await portal.set(sessionKey('s'), '{}', 'EX', 60);
    // Activity is the sink's to write (below); the portal reads it.
    await expect(portal.lrange(recentScoresKey(org.org_id), 0, -1)).resolves.toEqual([]);
    await expect(portal.lpush(recentScoresKey(org.org_id), '{}')).rejects.toThrow(NOPERM);
    await expect(portal.hincrby(dailyUsageKey(org.org_id, '2026-11-27'), 'total', 1)).rejects.toThrow(NOPERM);
    // Credits are read for the usage panel, never written; rate windows and idempotency entries are not its.
    await expect(portal.incr(`frs:credits:{${org.org_id}}:${month}`)).rejects.toThrow(NOPERM);
    await expect(portal.get(`frs:rl:{${org.org_id}}:1`)).rejects.toThrow(NOPERM);
    await expect(portal.hgetall(`frs:idem:{${org.org_id}}:abc`)).rejects.toThrow(NOPERM);
    // Organisations and portal users are the admin CLI's to create or change.
    await expect(portal.hset(`frs:org:${org.org_id}`, 'tier', 'bureau')).rejects.toThrow(NOPERM);
    await expect(portal.set(userByEmailKey('new@example.test'), 'usr_x')).rejects.toThrow(NOPERM);
    await expect(portal.publish('frs:orgs:changed', org.org_id)).rejects.toThrow(NOPERM);
    // No snapshot, ledger or queue key.
    await expect(portal.set('frs:cap:current:ip_tor_exit', 'x')).rejects.toThrow(NOPERM);
    await expect(portal.get('frs:cap:current:ip_tor_exit')).rejects.toThrow(NOPERM);
    await expect(portal.hset('frs:cap:ledger-votes:abc', 'org_a', '1')).rejects.toThrow(NOPERM);
    await expect(portal.lrange('frs:refresher:wait', 0, -1)).rejects.toThrow(NOPERM);
    // The month's phone lookups (the usage panel) are the API's to count and the portal's to read;
    // a number's cached fields are neither's business here.
    const lookups = usedKey('frs:cap', org.org_id, Date.now());
    await expect(portal.get(lookups)).resolves.toBeNull();
    await expect(portal.incr(lookups)).rejects.toThrow(NOPERM);
    await expect(portal.hget(fieldKey('frs:cap', 'abc', 'sim_swap'), 'v')).rejects.toThrow(NOPERM);
  });

  it("the sink's ledger learner writes outcome votes and quotas, and can touch nothing else", async () => {
    const sink = as.sink();
    // The learner's own scripts: the month's allowance, then a vote (with its expiry).
    const votes = new LedgerVotes(sink, 'frs:cap', 10);
    await expect(votes.takeAllowance('org_a', Date.now(), 1)).resolves.toBe(true);
    const vote = { orgId: 'org_a', outcomeId: newOutcomeId(), state: 't' as const };
    await expect(votes.vote('0'.repeat(32), vote, 'report')).resolves.toBe(true);
    await expect(votes.withdraw('0'.repeat(32), vote.orgId, vote.outcomeId)).resolves.toEqual({
      withdrawn: true,
    });
    // The portal's Activity lists, day counts and feed marker, as ActivityWriter writes them.
    const org = `org_acl_${Date.now()}`;
    const writer = new ActivityWriter(sink, createLogger('test', 'silent'));
    writer.start();
    writer.stop();
    writer.write([activityRecord(org)]);
    const store = new ActivityStore(as.portal());
    await waitFor('the sink wrote Activity', async () => (await store.read(org)).scores.length === 1, 5_000);
    expect(writer.failed).toBe(0);
    expect((await store.today(org)).total).toBe(1);
    expect(await store.live()).toBe(true);
    await expect(sink.lrange(sessionKey('s'), 0, -1)).rejects.toThrow(NOPERM);
    await expect(sink.hset('frs:cap:ledger-reports:counts', 'abc', '1')).rejects.toThrow(NOPERM);
    await expect(sink.set(digestKey('f'.repeat(64)), 'org_x')).rejects.toThrow(NOPERM);
    await expect(sink.get('frs:org:org_x')).rejects.toThrow(NOPERM);
    await expect(sink.set('frs:cap:current:ip_tor_exit', 'x')).rejects.toThrow(NOPERM);
    await expect(sink.hset('frs:cap:ledger:v1', 'abc', '1')).rejects.toThrow(NOPERM);
  });

  it('the refresher and the admin CLI stay inside their keys', async () => {
    const refresherClient = as.refresher();
    await expect(refresherClient.get(digestKey('f'.repeat(64)))).rejects.toThrow(NOPERM);
    await expect(refresherClient.set('frs:org:org_x', '1')).rejects.toThrow(NOPERM);
    await expect(refresherClient.hset('frs:cap:ledger-votes:abc', 'org_a', '1')).rejects.toThrow(NOPERM);
    // BullMQ's command set applies to the queue's keys only, and lists no other keys.
    await refresherClient.lpush('frs:refresher:acl-probe', 'x');
    await expect(refresherClient.lpush('frs:cap:current:ip_tor_exit', 'x')).rejects.toThrow(NOPERM);
    await expect(refresherClient.lpush('frs:org:org_x:keys', 'x')).rejects.toThrow(NOPERM);
    await expect(refresherClient.scan('0')).rejects.toThrow(NOPERM);

    const admin = as.admin();
    await expect(admin.incr(`frs:credits:{org_x}:${month}`)).rejects.toThrow(NOPERM);
    await expect(admin.get(sessionKey('s'))).rejects.toThrow(NOPERM);
    await expect(admin.set('frs:cap:current:ip_tor_exit', 'x')).rejects.toThrow(NOPERM);
  });

  it('the admin CLI writes and records operator corrections; API nodes only read them', async () => {
    const admin = new CorrectionStore(as.admin(), 'frs:cap');
    const c = parseCorrection({
      cidr: '198.51.100.0/24',
      kind: 'not_vpn',
      reason: 'acl test',
      operator: 'ops',
    });
    await admin.add(c);
    expect(await admin.history(1)).toMatchObject([{ action: 'add', target: '198.51.100.0/24' }]);
    // A node loads them through its user, and cannot change them, their record or their version.
    const api = as.api();
    const loaded = await loadCorrections(new CorrectionStore(api, 'frs:cap'), undefined);
    expect(loaded?.v4).toHaveLength(1);
    await expect(api.hset(admin.key, 'x', '{}')).rejects.toThrow(NOPERM);
    await expect(api.xadd(admin.logKey, '*', 'a', 'b')).rejects.toThrow(NOPERM);
    await expect(api.incr(admin.versionKey)).rejects.toThrow(NOPERM);
    // No other service reads them: they are never published.
    await expect(as.refresher().hgetall(admin.key)).rejects.toThrow(NOPERM);
    await expect(as.portal().hgetall(admin.key)).rejects.toThrow(NOPERM);
    await expect(as.sink().hgetall(admin.key)).rejects.toThrow(NOPERM);
    await admin.remove({ ...c, reason: 'done' });
    expect(await admin.list()).toEqual([]);
  });

  it('lists: the API, the portal and the admin CLI change them, nodes load them, the sink drains their audit', async () => {
    const { org } = await orgWithKey();
    const orgId = org.org_id;
    const entry = (value: string) => ({
      kind: 'ip' as const,
      value,
      effect: 'deny' as const,
      reason: 'acl test',
    });
    const api = new OrgListStore(as.api());
    await api.add(orgId, [entry('192.0.2.1')], 'key:key_acl');
    await new OrgListStore(as.portal()).replace(
      orgId,
      [entry('192.0.2.2'), entry('192.0.2.3')],
      'user:a@example.test',
    );
    await new OrgListStore(as.admin()).remove(orgId, ['ip:192.0.2.2'], 'operator:ops');
    // What a node does: the index, each list in HSCAN slices with its version, the announcements.
    expect(await api.orgsWithLists()).toContain(orgId);
    expect((await api.snapshot(orgId)).entries.map((e) => e.value)).toEqual(['192.0.2.3']);
    await expect(as.api().subscribe(LISTS_CHANGED_CHANNEL)).resolves.toBe(1);
    // It announces list changes, and nothing else through its selector.
    await expect(as.api().publish(LISTS_CHANGED_CHANNEL, orgId)).resolves.toBeTypeOf('number');
    await expect(as.api().publish(ORGS_CHANGED_CHANNEL, orgId)).rejects.toThrow(NOPERM);
    // The sink reads the outbox and deletes what ClickHouse took; the lists are not its.
    const sink = new OrgListStore(as.sink());
    const records = await sink.outbox(orgId, 10);
    expect(records.map((r) => r.change?.action)).toEqual(['add', 'replace', 'remove']);
    await expect(
      sink.acknowledge(
        orgId,
        records.map((r) => r.id),
      ),
    ).resolves.toBe(3);
    await expect(sink.list(orgId)).rejects.toThrow(NOPERM);
    await expect(sink.add(orgId, [entry('192.0.2.9')], 'operator:x')).rejects.toThrow(NOPERM);
    // No other service reads them.
    await expect(as.refresher().hgetall(listKey(orgId))).rejects.toThrow(NOPERM);
  });

  it('on the cache server, API nodes keep explain copies and recent-score indexes; the portal only reads copies', async () => {
    const apiCache = as.apiCache();
    await apiCache.set(explainKey('org_a', 'sc_1'), '{}', 'EX', 60);
    await apiCache.zadd('frs:recent:org_a', Date.now(), 'sc_1');
    await expect(apiCache.set('frs:org:org_a', 'x')).rejects.toThrow(NOPERM);
    const portalCache = as.portalCache();
    await expect(portalCache.get(explainKey('org_a', 'sc_1'))).resolves.toBe('{}');
    await expect(portalCache.set(explainKey('org_a', 'sc_2'), '{}')).rejects.toThrow(NOPERM);
    await expect(portalCache.zrange('frs:recent:org_a', '0', '-1')).rejects.toThrow(NOPERM);
  });

  it('a real API node scores and writes last-used times, and the refresher runs its jobs, each as its user', async () => {
    const { org, key_id: keyId, api_key: apiKey } = await orgWithKey();
    // The default prefixes: the ACL grants exactly those. The explain copies go to the cache server.
    node = await startApi({
      REDIS_URL: apiUrl(),
      EXPLAIN_REDIS_URL: url('frs-api', passwords.FRS_REDIS_EXPLAIN_PASSWORD, cachePort),
      NODE_ID: `acl-${port}`,
      KEY_USAGE_FLUSH_S: '0.2',
    });
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
    const portal = new OrgStore(as.portal());
    await waitFor('the key’s last-used time', async () => (await portal.keysLastUsed(org.org_id)).has(keyId));

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
    expect(refresher.output()).not.toMatch(NOPERM);
    expect(node.output()).not.toMatch(NOPERM);
  });
});
