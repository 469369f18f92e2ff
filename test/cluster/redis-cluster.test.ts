/**
 * The same code on a Redis Cluster (three primaries, three replicas, infra/local/redis-cluster.sh)
 * as on one server: key management, snapshots, scoring with admission (rate, credits,
 * idempotency), refunds and the credit reconciliation, key usage, ledger votes, the refresher's
 * queue and the portal's sign-in and Activity feed, each service as its own ACL user. A cluster
 * refuses a command or transaction whose keys span slots (CROSSSLOT); the slot recorder also
 * lists every multi-key command, script and MULTI this process sent, and each must hash to one slot.
 */
import { execFileSync } from 'node:child_process';
import { Queue, Worker } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceRedisEnv, type RedisService } from '../../infra/local/redis-users.ts';
import { Controls } from '../../services/api/controls/controls.ts';
import { KeyUsage } from '../../services/api/key-usage.ts';
import { ActivityStore } from '../../services/portal/activity.ts';
import { SigninLimit } from '../../services/portal/signin-limit.ts';
import { buildMissing } from '../../services/refresher/build-missing.ts';
import { REFRESHER_QUEUE } from '../../services/refresher/schedule.ts';
import { LedgerVotes } from '../../shared/capabilities/ledger-votes.ts';
import { CAPABILITY_BY_NAME, type CapabilityName } from '../../shared/capabilities/registry.ts';
import { SnapshotStore } from '../../shared/capabilities/store.ts';
import { createRedis, durableRedis, type RedisClient } from '../../shared/clients/redis.ts';
import { loadConfig, type Config } from '../../shared/config.ts';
import { newOutcomeId } from '../../shared/ids.ts';
import { createLogger } from '../../shared/logger.ts';
import { creditPeriod, creditsKey, keysLastUsedKey } from '../../shared/orgs/keyspace.ts';
import { OrgStore } from '../../shared/orgs/store.ts';
import { freshMobile, redis as devRedis, scoreCall } from '../../infra/harness/fixtures.ts';
import { startNode, type InProcessNode } from '../helpers/in-process.ts';
import { completeSetup, newPortalUser, startPortal, type PortalNode } from '../helpers/portal.ts';
import { keySlot, SlotRecorder } from '../helpers/slot-recorder.ts';
import { waitFor } from '../../infra/harness/wait.ts';
import { sinkGroupAtEnd } from '../../infra/harness/sink-group.ts';
import { startSink, type Service } from '../../infra/harness/processes.ts';

const BASE = 7100;
const SCRIPT = 'infra/local/redis-cluster.sh';
const scriptEnv = { ...process.env, FRS_REDIS_CLUSTER_PORT: String(BASE) };
const clusterEnv = {
  REDIS_URL: `redis://127.0.0.1:${BASE}`,
  REDIS_CLUSTER_NODES: [0, 1, 2].map((i) => `127.0.0.1:${BASE + i}`).join(','),
  BULLMQ_PREFIX: '{frs}',
};
const log = createLogger('test', process.env.TEST_LOG_LEVEL ?? 'silent');

/** The config a service would load on the cluster, logged in as its ACL user. */
function configOf(service: RedisService): Config {
  const env = { ...process.env, ...clusterEnv };
  return loadConfig({ ...env, ...serviceRedisEnv(service, env) });
}

describe('Redis Cluster', () => {
  const recorder = new SlotRecorder();
  const clients: RedisClient[] = [];
  const as = (service: RedisService, failFast = false) => {
    const c = createRedis(durableRedis(configOf(service)), {
      connectionName: `frs-test-cluster-${service}`,
      failFast,
    });
    clients.push(c);
    return c;
  };
  /** The default user, for the test's own reads. */
  const root = () => {
    const c = createRedis(durableRedis(loadConfig({ ...process.env, ...clusterEnv })));
    clients.push(c);
    return c;
  };
  let node: InProcessNode | undefined;
  let portal: PortalNode | undefined;
  let sink: Service | undefined;

  beforeAll(() => {
    execFileSync('bash', [SCRIPT, 'up'], { env: scriptEnv, stdio: 'ignore' });
  }, 60_000);

  afterAll(async () => {
    recorder.uninstall();
    await portal?.stop();
    await sink?.stop();
    await node?.stop();
    for (const c of clients) c.disconnect();
    execFileSync('bash', [SCRIPT, 'down'], { env: scriptEnv, stdio: 'ignore' });
  }, 60_000);

  it('the recorder computes the slots the cluster does, and catches a transaction across slots', async () => {
    const admin = root();
    for (const key of [
      'foo',
      'frs:credits:{org_1}:2026-11',
      'frs:cap:current:{ip_tor_exit}',
      '{}x',
      'a{}{b}',
    ])
      expect(keySlot(key)).toBe(await admin.cluster('KEYSLOT', key));
    // On one server a MULTI across slots goes through; the recorder still names it.
    const single = devRedis();
    const probe = new SlotRecorder().install();
    try {
      await single
        .multi()
        .set('frs:test:slot:{a}', '1', 'EX', 5)
        .set('frs:test:slot:{b}', '1', 'EX', 5)
        .exec();
    } finally {
      probe.uninstall();
      single.disconnect();
    }
    expect(probe.crossSlot()).toEqual([
      { what: 'multi set set', keys: ['frs:test:slot:{a}', 'frs:test:slot:{b}'] },
    ]);
  });

  it('runs keys, snapshots, scoring, the refresher queue, ledger votes and the portal', async () => {
    recorder.install();
    // Snapshots: the one-shot builds every capability as the refresher does, then nodes read them.
    const refresherCfg = configOf('refresher');
    const built = await buildMissing(refresherCfg, log);
    expect(built.filter((b) => b.outcome !== 'published')).toEqual([]);
    const names = [...CAPABILITY_BY_NAME.keys()] as CapabilityName[];
    const read = await new SnapshotStore(as('api'), refresherCfg.CAPABILITY_KEY_PREFIX).read(names);
    expect(read.every((r) => r.meta && r.status)).toBe(true);

    // Keys: created, listed, revoked, indexed; the API's replica loads the active ones.
    const admin = new OrgStore(as('admin'));
    const orgs = await Promise.all(
      [1, 2].map((i) => admin.createOrg({ name: `cluster-${i}`, tier: 'bureau' })),
    );
    const keys = await Promise.all(
      orgs.flatMap((o) => [admin.createKey(o.org_id), admin.createKey(o.org_id)]),
    );
    expect((await admin.listKeys(orgs[0]!.org_id)).map((k) => k.key_id).sort()).toEqual(
      [keys[0]!.key_id, keys[1]!.key_id].sort(),
    );
    await admin.revokeKey(keys[1]!.key_id);
    await admin.indexKeys();
    const active = new Set((await new OrgStore(as('api')).activeKeys()).map((k) => k.key.key_id));
    expect([keys[0], keys[2], keys[3]].every((k) => active.has(k!.key_id))).toBe(true);
    expect(active.has(keys[1]!.key_id)).toBe(false);

    // Scoring on an API node of the cluster: billed, replayed by Idempotency-Key, refused when revoked.
    node = await startNode(clusterEnv);
    const body = { subject: { phone_number: freshMobile() } };
    const first = await scoreCall(node.url, keys[0]!.api_key, body, { 'Idempotency-Key': 'cluster-1' });
    expect(first.status).toBe(200);
    const replay = await scoreCall(node.url, keys[0]!.api_key, body, { 'Idempotency-Key': 'cluster-1' });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect((await scoreCall(node.url, keys[2]!.api_key, body)).status).toBe(200);
    expect((await scoreCall(node.url, keys[1]!.api_key, body)).status).toBe(401);
    const api = as('api');
    const r = root();
    expect(await r.get(creditsKey(orgs[0]!.org_id, creditPeriod(Date.now())))).toBe('1');

    // Admission directly: a refund, and credits billed before Redis answered reconciled after.
    const principal = { org: orgs[1]!, keyId: keys[2]!.key_id };
    const controls = new Controls({ redis: api, log, nodeCount: 1 });
    const admitted = await controls.admit(principal, 'cluster-2', body);
    expect(admitted.kind).toBe('admitted');
    if (admitted.kind === 'admitted') await admitted.release();
    const credits = creditsKey(orgs[1]!.org_id, creditPeriod(Date.now()));
    expect(await r.get(credits)).toBe('1');
    const late = as('api', true);
    const early = new Controls({ redis: late, log, nodeCount: 1 });
    expect((await early.admit(principal, undefined, body)).headers['X-Credits-Remaining']).toBeDefined();
    await waitFor('reconciled credits', async () => (await r.get(credits)) === '2', 10_000);

    // Key usage of two organisations in one flush.
    const usage = new KeyUsage(api, log);
    usage.touch(orgs[0]!.org_id, keys[0]!.key_id, 1_000);
    usage.touch(orgs[1]!.org_id, keys[2]!.key_id, 2_000);
    await usage.flush();
    expect(await r.zscore(keysLastUsedKey(orgs[1]!.org_id), keys[2]!.key_id)).toBe('2000');

    // Ledger votes as the sink's learner writes them.
    const votes = new LedgerVotes(as('sink'), refresherCfg.CAPABILITY_KEY_PREFIX, 100);
    expect(await votes.takeAllowance(orgs[0]!.org_id, Date.now(), 1)).toBe(true);
    expect(
      await votes.vote(
        'cluster-subject',
        { orgId: orgs[0]!.org_id, outcomeId: newOutcomeId(), state: 't' },
        'report',
      ),
    ).toBe(true);

    // The refresher's queue (no refresher runs here): BullMQ's scripts on the hash-tagged prefix.
    const connection = as('refresher');
    const blocking = createRedis(durableRedis(refresherCfg), { blocking: true });
    clients.push(blocking);
    const queue = new Queue(REFRESHER_QUEUE, { connection, prefix: refresherCfg.BULLMQ_PREFIX });
    const worker = new Worker(REFRESHER_QUEUE, async (job) => job.data as unknown, {
      connection: blocking,
      prefix: refresherCfg.BULLMQ_PREFIX,
    });
    const done = new Promise<unknown>((resolve) => worker.on('completed', (job) => resolve(job.returnvalue)));
    await queue.add('ping', { n: 1 }, { removeOnComplete: true, removeOnFail: true });
    expect(await done).toEqual({ n: 1 });
    await worker.close();
    await queue.obliterate({ force: true });
    await queue.close();

    // The portal: sign-in limit directly, then setup and the Activity feed of a real score.
    const limit = new SigninLimit(as('portal'), {
      maxPerEmail: 10,
      maxPerIp: 10,
      maxPerIpEmail: 1,
      windowS: 60,
    });
    expect((await limit.take('a@example.test', '192.0.2.1')).ok).toBe(true);
    expect((await limit.take('a@example.test', '192.0.2.1')).ok).toBe(false);
    const adminClient = as('admin');
    const user = await newPortalUser(adminClient);
    portal = await startPortal(clusterEnv);
    // The sink keeps Activity: its own group, at the end of scores.v1, writing to the cluster.
    sink = startSink({ ...clusterEnv, ...(await sinkGroupAtEnd()), AUDIT_SINK_ACTIVITY: 'true' });
    expect((await completeSetup(portal.url, user.setupToken, 'a long cluster password 1')).status).toBe(303);
    const portalKey = await admin.createKey(user.orgId);
    expect((await scoreCall(node.url, portalKey.api_key, body)).status).toBe(200);
    const activity = new ActivityStore(as('portal'));
    // The sink's group starts at the end of scores.v1: it neither waits for earlier runs' dead
    // members nor reads their backlog first. The join still takes a rebalance on a loaded machine.
    await waitFor('activity row', async () => (await activity.read(user.orgId)).scores.length === 1, 75_000);

    // Every multi-key command, script and transaction this process sent stayed in one slot.
    expect(recorder.crossSlot()).toEqual([]);
    const kinds = new Set(recorder.touches.map((t) => t.what.split(' ')[0]));
    expect([...kinds]).toEqual(expect.arrayContaining(['evalsha', 'multi', 'mget']));
  }, 120_000);
});
