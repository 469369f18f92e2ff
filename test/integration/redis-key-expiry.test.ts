/**
 * Every Redis key the services write expires, except the short list of permanent keys in
 * shared/redis-keys.ts (documented in docs/security.md). A Redis server of the test's own starts
 * empty; the API node, the ledger learner, the admin stores, the snapshot one-shot and the portal
 * do their work on it; then every key without an expiry must match that list.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LedgerApplier } from '../../services/audit-sink/ledger-learner.ts';
import { LedgerTrust } from '../../services/audit-sink/ledger-trust.ts';
import type { ScoresProgress } from '../../services/audit-sink/scores-progress.ts';
import { buildMissing } from '../../services/refresher/build-missing.ts';
import { LedgerVotes } from '../../shared/capabilities/ledger-votes.ts';
import { SubjectKeys } from '../../shared/capabilities/subject-key.ts';
import { createClickHouse } from '../../shared/clients/clickhouse.ts';
import { createRedis, type Redis } from '../../shared/clients/redis.ts';
import { loadConfig } from '../../shared/config.ts';
import { newOutcomeId } from '../../shared/ids.ts';
import { createLogger } from '../../shared/logger.ts';
import { keysLastUsedKey } from '../../shared/orgs/keyspace.ts';
import { OrgStore } from '../../shared/orgs/store.ts';
import { OrgListStore } from '../../shared/orgs/lists-store.ts';
import { OUTCOME_RECORD_VERSION } from '../../shared/outcomes/record.ts';
import { permanentKey } from '../../shared/redis-keys.ts';
import { cfg as testCfg, freshAddress, freshMobile, scoreCall } from '../../infra/harness/fixtures.ts';
import { startNode, type InProcessNode } from '../helpers/in-process.ts';
import {
  completeSetup,
  newPortalUser,
  postSignin,
  signinForm,
  startPortal,
  type PortalNode,
} from '../helpers/portal.ts';
import { PrivateRedis } from '../helpers/private-redis.ts';
import { waitFor } from '../../infra/harness/wait.ts';

async function allKeys(client: Redis): Promise<string[]> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await client.scan(cursor, 'COUNT', 1000);
    cursor = next;
    keys.push(...batch);
  } while (cursor !== '0');
  return keys;
}

describe('Redis keys expire unless they are on the permanent list', () => {
  let server: PrivateRedis;
  let cache: PrivateRedis;
  let r: Redis;
  let rc: Redis;
  let node: InProcessNode | undefined;
  let portal: PortalNode | undefined;
  const ch = createClickHouse(testCfg.CLICKHOUSE_URL);

  beforeAll(async () => {
    [server, cache] = await Promise.all([PrivateRedis.start(), PrivateRedis.start('cache')]);
    r = createRedis(server.url);
    rc = createRedis(cache.url);
  }, 60_000);

  afterAll(async () => {
    await node?.stop();
    await portal?.stop();
    r?.disconnect();
    rc?.disconnect();
    await Promise.all([server?.stop(), cache?.stop()]);
    await ch.close();
  });

  it('after scores, outcomes, explain, the ledger, snapshots and portal sign-ins', async () => {
    const env = { REDIS_URL: server.url, EXPLAIN_REDIS_URL: cache.url, KEY_USAGE_FLUSH_S: '0.2' };
    const cfg = loadConfig({ ...process.env, ...env });
    await buildMissing(cfg, createLogger('refresh', 'warn'));

    const store = new OrgStore(r);
    const org = await store.createOrg({ name: 'expiry', tier: 'bureau', rateRps: 1000 });
    const { api_key: apiKey } = await store.createKey(org.org_id);
    // As an operator does once per Redis: the nodes load keys from the index, never by SCAN.
    await store.indexKeys();
    // An organisation's lists, through each kind of change (a replace writes a temporary hash).
    const lists = new OrgListStore(r);
    const listed = { kind: 'ip' as const, value: '192.0.2.1', effect: 'deny' as const, reason: 'expiry' };
    await lists.add(org.org_id, [listed], 'operator:expiry');
    await lists.replace(org.org_id, [listed, { ...listed, value: '192.0.2.2' }], 'operator:expiry');
    await lists.remove(org.org_id, ['ip:192.0.2.2'], 'operator:expiry');
    node = await startNode(env);

    const phone = freshMobile();
    // Fresh subjects: the outcomes also reach the shared stack's ledger through its sinks.
    const subject = { phone_number: phone, ip_address: freshAddress() };
    const scored = await scoreCall(node.url, apiKey, { subject }, { 'idempotency-key': 'expiry-1' });
    expect(scored.status).toBe(200);
    const { score_id: scoreId } = (await scored.json()) as { score_id: string };
    expect(
      (await fetch(`${node.url}/v1/explain/${scoreId}`, { headers: { authorization: `Bearer ${apiKey}` } }))
        .status,
    ).toBe(200);
    for (const body of [
      { score_id: scoreId, outcome: 'chargeback' },
      { subject, outcome: 'not_fraud' },
    ]) {
      const res = await fetch(`${node.url}/v1/outcomes`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${apiKey}`,
          'content-type': 'application/json',
          'idempotency-key': randomBytes(8).toString('hex'),
        },
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(202);
    }
    // Refused requests count too (the per-address and per-organisation budgets).
    expect((await scoreCall(node.url, apiKey, { subject: { phone_number: 'x' } })).status).toBe(422);
    expect((await scoreCall(node.url, `frs_live_${'A'.repeat(32)}`, { subject })).status).toBe(401);

    // The ledger learner's writes, as the sink makes them.
    const caughtUp = {
      watermark: async () => new Map(),
      reached: async () => true,
    } as unknown as ScoresProgress;
    const now = Date.now();
    await new LedgerApplier({
      votes: new LedgerVotes(r, cfg.CAPABILITY_KEY_PREFIX, cfg.LEDGER_WRITES_PER_ORG_MONTH),
      keys: SubjectKeys.fromConfig(cfg),
      trust: new LedgerTrust({ ch, database: cfg.CLICKHOUSE_DATABASE, progress: caughtUp }),
    }).applyAll([
      {
        v: OUTCOME_RECORD_VERSION,
        outcome_id: newOutcomeId(now),
        org_id: org.org_id,
        received_at_ms: now,
        occurred_at_ms: now,
        outcome: 'confirmed_fraud',
        score_id: scoreId,
        subject,
        node_id: 't',
        request: {},
      },
    ]);

    // The portal: a user set up, signed in, a failed sign-in.
    portal = await startPortal(env);
    const user = await newPortalUser(r);
    expect((await completeSetup(portal.url, user.setupToken, 'a long enough password')).status).toBe(303);
    const form = await signinForm(portal.url);
    expect(
      (await postSignin(portal.url, form, user.email, 'wrong password here', '203.0.113.7')).status,
    ).toBe(401);

    // Last-used times of keys are flushed every 0.2 s.
    await waitFor(
      'key usage written',
      async () => (await r.exists(keysLastUsedKey(org.org_id))) === 1,
      10_000,
      100,
    );

    const keys: string[] = [];
    const unexpiring: string[] = [];
    for (const client of [r, rc]) {
      for (const key of await allKeys(client)) {
        keys.push(key);
        if ((await client.pttl(key)) === -1 && !permanentKey(key)) unexpiring.push(key);
      }
    }
    expect(keys.length).toBeGreaterThan(20);
    expect(unexpiring).toEqual([]);
    // The list is not vacuous: this workload wrote permanent keys too, and expiring ones.
    expect(keys.filter(permanentKey).length).toBeGreaterThan(5);
    expect(keys.filter((k) => !permanentKey(k)).length).toBeGreaterThan(10);
  });
});
