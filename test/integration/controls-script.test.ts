import { afterAll, describe, expect, it } from 'vitest';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRedis } from '../../shared/clients/redis.ts';
import { ApiError } from '../../shared/contract/errors.ts';
import { createLogger } from '../../shared/logger.ts';
import { OrgStore } from '../../shared/orgs/store.ts';
import type { Principal } from '../../services/api/auth.ts';
import type { Admission } from '../../services/api/controls/admission.ts';
import { Controls } from '../../services/api/controls/controls.ts';
import { CreditJournal } from '../../services/api/controls/credit-journal.ts';
import { sha256 } from '../../services/api/controls/fingerprint.ts';
import { creditPeriod, creditsKey, idempotencyKey } from '../../shared/orgs/keyspace.ts';
import { waitFor } from '../../infra/harness/wait.ts';
import { cfg, orgWithKey } from '../../infra/harness/fixtures.ts';

const BODY = { subject: { ip_address: '81.2.69.142' } };

/** The controls module against the shared Redis, for paths the HTTP tests cannot reach (a 5xx). */
describe('controls on real Redis', () => {
  const redis = createRedis(cfg.REDIS_URL, { failFast: true, connectionName: 'frs-test-controls' });
  const store = new OrgStore(redis);
  const log = createLogger('test', 'silent');
  afterAll(() => redis.disconnect());

  async function principal(credits = 100): Promise<Principal> {
    const { orgId, keyId } = await orgWithKey('assess', { rateRps: 1000, credits });
    return { org: (await store.getOrg(orgId))!, keyId };
  }

  async function refusal(p: Promise<unknown>): Promise<ApiError> {
    const err = await p.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ApiError);
    return err as ApiError;
  }

  it('refunds the credit and frees the key when the request fails after admission', async () => {
    const controls = new Controls({ redis, log, nodeCount: 1 });
    const p = await principal();
    const first = await controls.admit(p, 'fails-once', BODY);
    expect(first.kind).toBe('admitted');
    expect((await store.creditsUsed(p.org.org_id)).used).toBe(1);

    const busy = await refusal(controls.admit(p, 'fails-once', BODY));
    expect(busy.status).toBe(409);
    expect(busy.items[0]!.code).toBe('E_IDEMPOTENCY_IN_PROGRESS');
    expect(busy.headers['Retry-After']).toBe('1');

    if (first.kind === 'admitted') await first.release();
    expect((await store.creditsUsed(p.org.org_id)).used).toBe(0);
    const retry = await controls.admit(p, 'fails-once', BODY);
    expect(retry.kind).toBe('admitted');
    expect(retry.headers['X-Credits-Remaining']).toBe('99');
  });

  it('replays the stored 200 byte for byte without billing it again', async () => {
    const controls = new Controls({ redis, log, nodeCount: 1 });
    const p = await principal();
    const first = await controls.admit(p, 'stored', BODY);
    if (first.kind !== 'admitted') throw new Error('expected admission');
    const body = JSON.stringify({ score_id: 'sc_0', score: 42 });
    await first.commit(body);
    const again = await controls.admit(p, 'stored', { subject: { ip_address: '81.2.69.142' } });
    expect(again).toMatchObject({ kind: 'replay', body });
    expect(again.headers['Idempotent-Replayed']).toBe('true');
    expect((await store.creditsUsed(p.org.org_id)).used).toBe(1);
  });

  it("admits one turn's requests of an organisation in one script run, each with the outcome it would have had alone", async () => {
    // Rate 40/s, 30 credits and 3 of overdraft: of 60 requests in one window, 40 pass the rate
    // check (the rest are 429s, taking no slot) and of those the first 33 are billed (the rest 402).
    const a = await orgWithKey('assess', { rateRps: 40, credits: 30, overdraft: 3 });
    const b = await orgWithKey('assess', { rateRps: 40, credits: 1000 });
    const pa: Principal = { org: (await store.getOrg(a.orgId))!, keyId: a.keyId };
    const pb: Principal = { org: (await store.getOrg(b.orgId))!, keyId: b.keyId };
    const now = Date.parse('2031-03-10T12:00:00.250Z');
    const client = createRedis(cfg.REDIS_URL, { failFast: true, connectionName: 'frs-test-controls-turn' });
    const monitor = await redis.monitor();
    try {
      await client.ping();
      const addr = /addr=(\S+)/.exec(String(await client.client('INFO')))![1]!;
      const sent: string[] = [];
      monitor.on('monitor', (_time: string, args: string[], source: string) => {
        if (source === addr) sent.push(String(args[0]).toLowerCase());
      });
      const controls = new Controls({ redis: client, log, nodeCount: 1, now: () => now });
      // All in one turn: every admit is called before any of them is sent.
      const settled = await Promise.allSettled([
        ...Array.from({ length: 60 }, () => controls.admit(pa, undefined, BODY)),
        ...Array.from({ length: 5 }, () => controls.admit(pb, undefined, BODY)),
      ]);
      const status = (r: PromiseSettledResult<unknown>) =>
        r.status === 'fulfilled' ? 200 : (r.reason as ApiError).status;
      const statuses = settled.slice(0, 60).map(status);
      expect(statuses).toEqual([...Array(33).fill(200), ...Array(7).fill(402), ...Array(20).fill(429)]);
      // Each admitted request sees the window and credits as they were after its own admission.
      const remaining = settled
        .slice(0, 33)
        .map((r) => (r as PromiseFulfilledResult<Admission>).value.headers['X-Credits-Remaining']);
      expect(remaining).toEqual(Array.from({ length: 33 }, (_, i) => String(30 - (i + 1))));
      expect(settled.slice(60).map(status)).toEqual([200, 200, 200, 200, 200]);
      expect(
        settled
          .slice(60)
          .map((r) => (r as PromiseFulfilledResult<Admission>).value.headers['X-RateLimit-Remaining']),
      ).toEqual(['39', '38', '37', '36', '35']);
      expect((await store.creditsUsed(a.orgId, now)).used).toBe(33);
      expect((await store.creditsUsed(b.orgId, now)).used).toBe(5);
      // One script run per organisation for the 65 requests (EVALSHA, or EVAL the first time).
      await waitFor(
        'the scripts in MONITOR',
        async () => sent.filter((c) => c === 'evalsha' || c === 'eval').length >= 2,
        5_000,
      );
      expect(sent.filter((c) => c === 'evalsha' || c === 'eval').length).toBeLessThanOrEqual(
        sent.includes('eval') ? 4 : 2,
      );
    } finally {
      monitor.disconnect();
      client.disconnect();
    }
  });

  it('bills each UTC calendar month on its own counter', async () => {
    const p = await principal(1);
    let now = Date.parse('2031-01-31T23:59:59.900Z');
    const controls = new Controls({ redis, log, nodeCount: 1, now: () => now });
    expect((await controls.admit(p, undefined, BODY)).headers['X-Credits-Remaining']).toBe('0');
    const exhausted = await refusal(controls.admit(p, undefined, BODY));
    expect(exhausted.status).toBe(402);
    expect(exhausted.items[0]!.code).toBe('E_CREDITS_EXHAUSTED');
    now = Date.parse('2031-02-01T00:00:00.100Z');
    expect((await controls.admit(p, undefined, BODY)).headers['X-Credits-Remaining']).toBe('0');
    expect(await store.creditsUsed(p.org.org_id, now)).toEqual({ period: '2031-02', used: 1 });
  });

  it('keeps an idempotent 200 as fingerprint, score_id and a compact body, and replays its exact bytes', async () => {
    const controls = new Controls({ redis, log, nodeCount: 1 });
    const p = await principal();
    const first = await controls.admit(p, 'compact', BODY);
    if (first.kind !== 'admitted') throw new Error('expected admission');
    const scoreId = `sc_${'ab'.repeat(16)}`;
    // A realistic 200: a few KB of JSON with repetitive structure and non-ASCII text.
    const body = JSON.stringify({
      score_id: scoreId,
      client_reference: 'r\u00e9f-\u{1F600}',
      components: Array.from({ length: 12 }, (_, i) => ({
        component: `c${i}`,
        verdict: 'no_match',
        contribution: 0,
        detail: 'NDC_RANGE_UNKNOWN',
      })),
      suppressed: Array.from({ length: 12 }, (_, i) => ({ component: `s${i}`, available_in: 'bureau' })),
    });
    await first.commit(body);
    const key = idempotencyKey(p.org.org_id, sha256('compact'));
    const entry = await redis.hgetall(key);
    expect(Object.keys(entry).sort()).toEqual(['body', 'fp', 'sid', 'state']);
    expect(entry.sid).toBe(scoreId);
    expect(entry.body!.length).toBeLessThan(body.length / 2);
    const again = await controls.admit(p, 'compact', BODY);
    expect(again).toMatchObject({ kind: 'replay', body });
  });

  it('retains at most the per-day cap of idempotency entries per organisation; past it scores, unretained', async () => {
    const controls = new Controls({ redis, log, nodeCount: 1, idempotencyEntriesPerDay: 2 });
    const p = await principal();
    for (const k of ['cap-1', 'cap-2']) {
      const a = await controls.admit(p, k, BODY);
      expect(a.kind).toBe('admitted');
      expect(a.headers['Idempotency-Status']).toBeUndefined();
    }
    const third = await controls.admit(p, 'cap-3', BODY);
    expect(third.kind).toBe('admitted');
    expect(third.headers['Idempotency-Status']).toBe('not-retained');
    expect(await redis.exists(idempotencyKey(p.org.org_id, sha256('cap-3')))).toBe(0);
    // Still billed once, and another organisation is not affected.
    expect((await store.creditsUsed(p.org.org_id)).used).toBe(3);
    const other = await principal();
    expect((await controls.admit(other, 'cap-3', BODY)).headers['Idempotency-Status']).toBeUndefined();
  });

  it('retries a failed credit reconciliation on its own timer, with no further request to trigger it', async () => {
    const controls = new Controls({ redis, log, nodeCount: 1 });
    const p = await principal();
    const credits = creditsKey(p.org.org_id, creditPeriod(Date.now()));
    // A value of the wrong type under the credits key makes every Redis write of it fail, as a
    // Redis that is back but not yet serving would: admissions are billed on the node.
    await redis.hset(credits, 'not', 'a counter');
    for (let i = 0; i < 3; i++) {
      const a = await controls.admit(p, undefined, BODY);
      expect(a.kind).toBe('admitted');
    }
    await controls.reconcile();
    expect(await redis.type(credits)).toBe('hash');
    // Redis heals; nothing reaches this node from now on, so only the retry timer can land them.
    await redis.del(credits);
    const used = await waitFor(
      'the retried reconciliation',
      async () => ((await store.creditsUsed(p.org.org_id)).used === 3 ? 3 : undefined),
      10_000,
      100,
    );
    expect(used).toBe(3);
  });

  it('a retry through a dead request takes its claim over after 30 s and is not billed again', async () => {
    let now = Date.now();
    const controls = new Controls({ redis, log, nodeCount: 1, now: () => now });
    const p = await principal();
    const first = await controls.admit(p, 'node-died', BODY);
    expect(first.kind).toBe('admitted');
    // Its node dies here: the request neither commits nor releases.
    expect((await store.creditsUsed(p.org.org_id)).used).toBe(1);
    const busy = await refusal(controls.admit(p, 'node-died', BODY));
    expect(busy.items[0]!.code).toBe('E_IDEMPOTENCY_IN_PROGRESS');

    now += 31_000;
    const retry = await controls.admit(p, 'node-died', BODY);
    expect(retry.kind).toBe('admitted');
    expect(retry.headers['X-Credits-Remaining']).toBe('99');
    expect((await store.creditsUsed(p.org.org_id)).used).toBe(1);
    if (retry.kind !== 'admitted') throw new Error('expected admission');
    const body = JSON.stringify({ score_id: `sc_${'cd'.repeat(16)}`, score: 7 });
    await retry.commit(body);
    // Stored by the retry, replayed after; the dead request's token cannot store over it.
    if (first.kind === 'admitted') await first.commit(JSON.stringify({ score_id: 'sc_dead' }));
    expect(await controls.admit(p, 'node-died', BODY)).toMatchObject({ kind: 'replay', body });
    expect((await store.creditsUsed(p.org.org_id)).used).toBe(1);
    // The entry still names the request that billed it, for a settlement arriving late.
    const entry = await redis.hgetall(idempotencyKey(p.org.org_id, sha256('node-died')));
    expect(Object.keys(entry).sort()).toEqual(['body', 'bt', 'fp', 'sid', 'state']);
  });

  it('a request its node died answering, sent again to a node whose Redis is down, is billed once', async () => {
    const p = await principal();
    const nodeA = new Controls({ redis, log, nodeCount: 2 });
    const first = await nodeA.admit(p, 'resent', BODY);
    expect(first.kind).toBe('admitted');
    // Node A dies here, its 200 never sent. Node B cannot reach Redis: it answers locally.
    const other = createRedis(cfg.REDIS_URL, { failFast: true, connectionName: 'frs-test-node-b' });
    if (other.status !== 'ready') await once(other, 'ready');
    const nodeB = new Controls({ redis: other, log, nodeCount: 2 });
    const ended = once(other, 'end');
    other.disconnect();
    await ended;
    try {
      const resent = await nodeB.admit(p, 'resent', BODY);
      expect(resent).toMatchObject({ kind: 'admitted', headers: { 'Idempotency-Status': 'unavailable' } });
      // Two local answers of one key (node B twice, as two nodes would) and one of a fresh key.
      expect((await nodeB.admit(p, 'fresh', BODY)).kind).toBe('admitted');
      expect((await nodeB.admit(p, 'fresh', BODY)).kind).toBe('admitted');
      expect(nodeB.unsettledCredits).toBe(3);
      other.connect().catch(() => undefined);
      await waitFor(
        'the settlement',
        async () => (nodeB.unsettledCredits === 0 ? true : undefined),
        10_000,
        50,
      );
      expect((await store.creditsUsed(p.org.org_id)).used).toBe(2);
    } finally {
      other.disconnect();
    }
  });

  it("settles a killed node's local admissions when it starts again with its journal, once", async () => {
    const p = await principal();
    const dir = mkdtempSync(join(tmpdir(), 'frs-credits-'));
    const down = createRedis(cfg.REDIS_URL, { failFast: true, connectionName: 'frs-test-dying-node' });
    if (down.status !== 'ready') await once(down, 'ready');
    const journal = new CreditJournal(dir);
    expect(await journal.open()).toEqual({ batches: new Map(), loose: new Map(), idempotent: new Map() });
    const dying = new Controls({ redis: down, log, nodeCount: 1, journal });
    const ended = once(down, 'end');
    down.disconnect();
    await ended;
    // Answered locally: two without a key (one then fails and is refunded), one with a key.
    expect((await dying.admit(p, undefined, BODY)).kind).toBe('admitted');
    const failed = await dying.admit(p, undefined, BODY);
    if (failed.kind !== 'admitted') throw new Error('expected admission');
    await failed.release();
    expect((await dying.admit(p, 'journalled', BODY)).kind).toBe('admitted');
    expect(dying.unsettledCredits).toBe(2);
    // SIGKILL here: nothing reached Redis. The file is all that is left.
    await journal.close();
    expect((await store.creditsUsed(p.org.org_id)).used).toBe(0);

    const file = join(dir, 'credits.ndjson');
    const leftByTheKill = readFileSync(file, 'utf8');
    expect(leftByTheKill.trim().split('\n')).toHaveLength(4);
    for (const start of [1, 2]) {
      // Started again; the second time from the same file, as after a crash while settling it
      // (batches sent again under their ids, the idempotent one under its token: counted once).
      if (start === 2) writeFileSync(file, leftByTheKill);
      const again = new CreditJournal(dir);
      const node = new Controls({ redis, log, nodeCount: 1, journal: again });
      await node.recover(await again.open());
      expect(node.unsettledCredits).toBe(0);
      expect((await store.creditsUsed(p.org.org_id)).used).toBe(2);
      await again.close();
      // Settled: the journal is emptied.
      expect(readFileSync(file, 'utf8')).toBe('');
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it("a retry whose scoring fails after taking a claim over refunds the dead request's credit", async () => {
    let now = Date.now();
    const controls = new Controls({ redis, log, nodeCount: 1, now: () => now });
    const p = await principal();
    expect((await controls.admit(p, 'died-then-failed', BODY)).kind).toBe('admitted');
    now += 31_000;
    const retry = await controls.admit(p, 'died-then-failed', BODY);
    if (retry.kind !== 'admitted') throw new Error('expected admission');
    await retry.release();
    expect((await store.creditsUsed(p.org.org_id)).used).toBe(0);
    expect((await controls.admit(p, 'died-then-failed', BODY)).kind).toBe('admitted');
    expect((await store.creditsUsed(p.org.org_id)).used).toBe(1);
  });
});

describe('controls waiting for replicas (REDIS_WAIT_REPLICAS)', () => {
  const redis = createRedis(cfg.REDIS_URL, { failFast: true, connectionName: 'frs-test-controls-wait' });
  const store = new OrgStore(redis);
  const log = createLogger('test', 'silent');
  afterAll(() => redis.disconnect());

  it('answers an admission WAIT could not confirm (no replica here), billed once, and counts it', async () => {
    const { orgId, keyId } = await orgWithKey('assess', { rateRps: 1000, credits: 100 });
    const p: Principal = { org: (await store.getOrg(orgId))!, keyId };
    let unreplicated = 0;
    const controls = new Controls({
      redis,
      log,
      nodeCount: 1,
      waitReplicas: 1,
      waitTimeoutMs: 20,
      onUnreplicated: () => unreplicated++,
    });
    // The dev server has no replica: WAIT 1 20 answers 0 after 20 ms.
    expect(Number((await redis.info('replication')).match(/connected_slaves:(\d+)/)?.[1])).toBe(0);
    const first = await controls.admit(p, 'wait-1', BODY);
    expect(first.kind).toBe('admitted');
    const plain = await controls.admit(p, undefined, BODY);
    expect(plain.kind).toBe('admitted');
    expect(unreplicated).toBe(2);
    expect((await store.creditsUsed(orgId)).used).toBe(2);
    // Refusals and replays wrote nothing to confirm.
    if (first.kind === 'admitted') await first.commit(JSON.stringify({ score_id: `sc_${'cd'.repeat(16)}` }));
    expect((await controls.admit(p, 'wait-1', BODY)).kind).toBe('replay');
    expect(unreplicated).toBe(2);
  });

  it('settles an unconfirmed idempotent admission later: billed once whether a failover lost it or not', async () => {
    const { orgId, keyId } = await orgWithKey('assess', { rateRps: 1000, credits: 100 });
    const p: Principal = { org: (await store.getOrg(orgId))!, keyId };
    const dir = mkdtempSync(join(tmpdir(), 'frs-credits-'));
    const journal = new CreditJournal(dir);
    await journal.open();
    const primary = new Controls({ redis, log, nodeCount: 1, journal, waitReplicas: 1, waitTimeoutMs: 20 });
    const lost = await primary.admit(p, 'wait-lost', BODY);
    const kept = await primary.admit(p, 'wait-kept', BODY);
    expect((await primary.admit(p, undefined, BODY)).kind).toBe('admitted');
    if (lost.kind !== 'admitted' || kept.kind !== 'admitted') throw new Error('expected admissions');
    await kept.commit(JSON.stringify({ score_id: `sc_${'ef'.repeat(16)}` }));
    // Both idempotent ones are owed until a replica holds a settlement; the plain one cannot be.
    expect(primary.unsettledCredits).toBe(2);
    await primary.reconcile();
    expect(primary.unsettledCredits).toBe(2);
    expect((await store.creditsUsed(orgId)).used).toBe(3);
    // The primary dies before replicating one of them: the promoted replica never saw its entry,
    // its credit, nor the settlements tried since (their markers). The node dies too; started
    // again, it settles what its journal owes.
    const credits = creditsKey(orgId, creditPeriod(Date.now()));
    await redis.del(
      idempotencyKey(orgId, sha256('wait-lost')),
      ...(await redis.keys(`${credits}:settled:*`)),
    );
    await redis.decr(credits);
    await journal.close();
    const again = new CreditJournal(dir);
    const node = new Controls({ redis, log, nodeCount: 1, journal: again });
    await node.recover(await again.open());
    expect(node.unsettledCredits).toBe(0);
    expect((await store.creditsUsed(orgId)).used).toBe(3);
    await again.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('sends no WAIT with REDIS_WAIT_REPLICAS 0 (one server)', async () => {
    const { orgId, keyId } = await orgWithKey('assess', { rateRps: 1000, credits: 100 });
    const p: Principal = { org: (await store.getOrg(orgId))!, keyId };
    let unreplicated = 0;
    const controls = new Controls({ redis, log, nodeCount: 1, onUnreplicated: () => unreplicated++ });
    expect((await controls.admit(p, 'no-wait', BODY)).kind).toBe('admitted');
    expect(unreplicated).toBe(0);
  });
});

describe('reconcile.lua', () => {
  const redis = createRedis(cfg.REDIS_URL, { connectionName: 'frs-test-reconcile' });
  afterAll(() => redis.disconnect());

  it('adds a batch once however often it is sent, and each batch id once', async () => {
    const lua = readFileSync(new URL('../../services/api/controls/reconcile.lua', import.meta.url), 'utf8');
    redis.defineCommand('testReconcile', { lua, numberOfKeys: 2 });
    const run = (key: string, id: string, n: number) =>
      (redis as unknown as { testReconcile(...a: (string | number)[]): Promise<number> }).testReconcile(
        key,
        `${key}:reconciled:${id}`,
        n,
        3600,
        60,
      );
    const { orgId } = await orgWithKey('assess', { rateRps: 1000, credits: 100 });
    const key = `frs:credits:{${orgId}}:2031-01`;
    await redis.set(key, '10');
    expect(await run(key, 'a', 5)).toBe(15);
    // The same batch again (its reply was lost): read, not added.
    expect(await run(key, 'a', 5)).toBe(15);
    expect(await run(key, 'b', 2)).toBe(17);
    expect(await redis.ttl(`${key}:reconciled:a`)).toBeGreaterThan(0);
    expect(await redis.ttl(key)).toBeGreaterThan(0);
  });
});

describe('settle.lua', () => {
  const redis = createRedis(cfg.REDIS_URL, { connectionName: 'frs-test-settle' });
  afterAll(() => redis.disconnect());

  it('bills a locally admitted request only if its admission script did not run, and once', async () => {
    const lua = readFileSync(new URL('../../services/api/controls/settle.lua', import.meta.url), 'utf8');
    redis.defineCommand('testSettle', { lua, numberOfKeys: 3 });
    const { orgId } = await orgWithKey('assess', { rateRps: 1000, credits: 100 });
    const key = `frs:credits:{${orgId}}:2031-01`;
    const settle = (idem: string, token: string, fp = 'x') =>
      (redis as unknown as { testSettle(...a: (string | number)[]): Promise<number> }).testSettle(
        key,
        idem,
        `${key}:settled:${token}`,
        token,
        3600,
        60,
        fp,
        60,
      );
    await redis.set(key, '10');
    // The script ran (its entry holds this token): Redis billed it already.
    const ran = idempotencyKey(orgId, sha256('ran'));
    await redis.hset(ran, 'fp', 'x', 'state', 'pending', 'token', 't-ran');
    expect(await settle(ran, 't-ran')).toBe(10);
    // It did not (no entry, or another request's): billed now, and once however often sent.
    expect(await settle(idempotencyKey(orgId, sha256('lost')), 't-lost')).toBe(11);
    expect(await settle(idempotencyKey(orgId, sha256('lost')), 't-lost')).toBe(11);
    // Another attempt of the same key and body (its first node died, the caller sent it again)
    // answered locally: the same request, billed by the script that ran.
    expect(await settle(ran, 't-other')).toBe(11);
    expect(await settle(ran, 't-ran-other-body', 'z')).toBe(12);
    // The script ran late, after the node had answered locally, and the answer was kept:
    // store-response.lua dropped `token` and `bt`, the entry still holds the key and body.
    const storedLate = idempotencyKey(orgId, sha256('stored-late'));
    await redis.hset(storedLate, 'fp', 'x', 'state', 'done', 'sid', 's', 'body', 'b');
    expect(await settle(storedLate, 't-late')).toBe(12);
    // A retry took the claim over (a new owner token), or stored its answer: the entry still names
    // the request that billed it, which is not billed again.
    const takenOver = idempotencyKey(orgId, sha256('taken-over'));
    await redis.hset(takenOver, 'fp', 'x', 'state', 'done', 'bt', 't-billed', 'sid', 's', 'body', 'b');
    expect(await settle(takenOver, 't-billed')).toBe(12);
    // Another node billed this key and body and died before answering; the caller sent it again
    // and a node answered it locally: billed already. A different body under the key is billed.
    expect(await settle(takenOver, 't-resent')).toBe(12);
    expect(await settle(takenOver, 't-other-body', 'y')).toBe(13);
    // Two nodes answered the same key locally: the first settlement bills and leaves an entry
    // naming it, the second finds it.
    const twice = idempotencyKey(orgId, sha256('local-twice'));
    expect(await settle(twice, 't-node-a')).toBe(14);
    expect(await redis.hmget(twice, 'bt', 'fp', 'until')).toEqual(['t-node-a', 'x', '0']);
    expect(await settle(twice, 't-node-b')).toBe(14);
  });
});
