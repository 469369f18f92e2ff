import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedis } from '../../shared/clients/redis.ts';
import { ErrorBody } from '../../shared/contract/errors.ts';
import { OrgStore } from '../../shared/orgs/store.ts';
import { scoreCall } from '../../infra/harness/fixtures.ts';
import { PrivateRedis } from '../helpers/private-redis.ts';
import { holdLoadFor, nextWholeSecond, pace } from '../../infra/harness/wait.ts';
import { startApi, waitFor, type ApiNode } from '../../infra/harness/processes.ts';
import { publishSnapshots } from '../../infra/harness/snapshots.ts';

const BODY = { subject: { phone_number: '+447911123456', ip_address: '81.2.69.142' } };

interface Reply {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
  ms: number;
  node: string;
}

let seq = 0;
async function call(node: ApiNode, apiKey: string, headers: Record<string, string> = {}): Promise<Reply> {
  const t0 = performance.now();
  const res = await scoreCall(node.url, apiKey, BODY, { 'Idempotency-Key': `k-${++seq}`, ...headers });
  const body = (await res.json()) as Record<string, unknown>;
  return { status: res.status, headers: res.headers, body, ms: performance.now() - t0, node: node.url };
}

/** One request per node every `everyMs` until `stop()` is called; returns every reply. */
function steadyTraffic(nodes: ApiNode[], apiKey: string, everyMs: number) {
  let running = true;
  const replies: Reply[] = [];
  const loops = nodes.map(async (node) => {
    while (running) {
      replies.push(await call(node, apiKey));
      await pace(everyMs); // the pace of the traffic
    }
  });
  return {
    replies,
    stop: async () => {
      running = false;
      await Promise.all(loops);
      return replies;
    },
  };
}

const unavailable = (r: Reply) => r.headers.get('idempotency-status') === 'unavailable';

/** Until every node has given a 200 of the kind `which` names in `replies` (from `from` on). */
function untilEveryNode(
  nodes: ApiNode[],
  replies: Reply[],
  what: string,
  which: (r: Reply) => boolean,
  from = 0,
) {
  return waitFor(
    what,
    async () =>
      nodes.every((n) => replies.slice(from).some((r) => r.node === n.url && r.status === 200 && which(r))),
    15_000,
    50,
  );
}

describe('scoring while Redis is down (a private redis-server the test stops and restarts)', () => {
  let redis: PrivateRedis;
  let nodes: ApiNode[] = [];
  let org: { org_id: string };
  let apiKey: string;
  let unknownKey: string;
  const all: Reply[] = [];

  beforeAll(async () => {
    redis = await PrivateRedis.start();
    const client = createRedis(redis.url);
    try {
      const store = new OrgStore(client);
      org = await store.createOrg({ name: 'outage', tier: 'assess', rateRps: 20, credits: 1000 });
      apiKey = (await store.createKey(org.org_id)).api_key;
      // As an operator does once per Redis: the nodes load keys from the index, never by SCAN.
      await store.indexKeys();
      // A real key that no node has seen: created in another Redis, so absent from their replica.
      unknownKey = 'frs_live_' + 'Z'.repeat(32);
    } finally {
      client.disconnect();
    }
    const env = { REDIS_URL: redis.url, CONTROLS_NODE_COUNT: '2' };
    await publishSnapshots(env);
    nodes = await Promise.all([startApi(env), startApi(env)]);
  });

  afterAll(async () => {
    await Promise.all(nodes.map((n) => n.stop()));
    await redis?.destroy();
  });

  it('keeps answering through the outage within the local bounds, then reconciles', async () => {
    // Up: shared controls, idempotency available.
    const traffic = steadyTraffic(nodes, apiKey, 100);
    await untilEveryNode(nodes, traffic.replies, 'shared controls on every node', (r) => !unavailable(r));
    await redis.stop();
    const down = traffic.replies.length;
    await untilEveryNode(nodes, traffic.replies, 'local controls on every node', unavailable, down);
    all.push(...(await traffic.stop()));
    expect(all.filter((r) => r.status >= 500)).toEqual([]);
    for (const r of all) expect([200, 429]).toContain(r.status);
    expect(all.some((r) => r.status === 200 && !unavailable(r))).toBe(true);
    expect(all.some((r) => r.status === 200 && unavailable(r))).toBe(true);

    // Down: each node admits rate_rps / CONTROLS_NODE_COUNT = 10 per second, fast. A burst a
    // loaded machine stretched into the next second's window is sent again, at most three times.
    let burst: Reply[] = [];
    for (let attempt = 1; attempt <= 3; attempt++) {
      await nextWholeSecond();
      const second = Math.floor(Date.now() / 1000);
      burst = await Promise.all(Array.from({ length: 60 }, (_, i) => call(nodes[i % 2]!, apiKey)));
      all.push(...burst);
      if (Math.floor(Date.now() / 1000) === second) break;
    }
    const ok = burst.filter((r) => r.status === 200);
    expect(ok).toHaveLength(20);
    expect(burst.filter((r) => r.status === 429)).toHaveLength(40);
    for (const r of ok) {
      expect(unavailable(r)).toBe(true);
      expect(r.headers.get('x-ratelimit-limit')).toBe('10');
    }
    for (const r of burst.filter((x) => x.status === 429)) {
      expect(r.headers.get('retry-after')).toMatch(/^[1-9][0-9]*$/);
      expect(ErrorBody.parse(r.body).errors[0]!.code).toBe('E_RATE_LIMITED');
    }
    expect(Math.max(...burst.map((r) => r.ms))).toBeLessThan(1000);

    // A key the nodes never knew cannot be vouched for while Redis is down: 401, not a 5xx.
    const stranger = await scoreCall(nodes[0]!.url, unknownKey, BODY);
    expect(stranger.status).toBe(401);
    expect(stranger.headers.get('www-authenticate')).toBe('Bearer');

    // Back: shared controls resume and the credits billed locally reach Redis.
    await nextWholeSecond();
    await redis.restart();
    const after = steadyTraffic(nodes, apiKey, 100);
    await untilEveryNode(
      nodes,
      after.replies,
      'a response with idempotency available again from every node',
      (r) => !unavailable(r),
    );
    await holdLoadFor(300);
    all.push(...(await after.stop()));
    expect(all.filter((r) => r.status >= 500)).toEqual([]);
    const shared = after.replies.filter((r) => r.status === 200 && !unavailable(r));
    for (const r of shared) expect(r.headers.get('x-ratelimit-limit')).toBe('20');

    const served = all.filter((r) => r.status === 200).length;
    const client = createRedis(redis.url);
    try {
      const store = new OrgStore(client);
      // Each node's locally billed credits reach Redis. The documented bound: never billed twice,
      // and under-billed only by a request whose script was cut off as Redis went away (one per
      // node here, since each node's traffic is one request at a time; twice that for slack).
      const billed = await waitFor(
        'reconciled credits',
        async () => {
          const { used } = await store.creditsUsed(org.org_id);
          return used >= served - 2 * nodes.length ? used : undefined;
        },
        // Reconciliation runs on a timer after Redis returns; a loaded 2-core machine stretches it.
        30_000,
      );
      expect(billed).toBeLessThanOrEqual(served);
      expect(billed).toBeGreaterThanOrEqual(served - 2 * nodes.length);
    } finally {
      client.disconnect();
    }

    // A key the first node stored in Redis (not one it answered from its local controls, which a
    // node may still do for a moment if its connection dropped again): the other node replays it.
    await nextWholeSecond();
    let attempt = 0;
    const { first, key } = await waitFor('a stored idempotent answer on the first node', async () => {
      const k = { 'Idempotency-Key': `after-recovery-${++attempt}` };
      const r = await call(nodes[0]!, apiKey, k);
      return r.status === 200 && !unavailable(r) ? { first: r, key: k } : undefined;
    });
    // The same holds for the second node: on a loaded machine a command that outlives the client's
    // 250 ms timeout sends it local for a second, and a local answer says `unavailable`, not
    // replayed. Any answer it gives from shared controls must be the replay.
    const replay = await waitFor('a shared-controls answer from the second node', async () => {
      const r = await call(nodes[1]!, apiKey, key);
      return r.status === 200 && !unavailable(r) ? r : undefined;
    });
    const seen = (r: Reply) => `${r.status} ${r.headers.get('idempotency-status')} ${JSON.stringify(r.body)}`;
    expect(replay.headers.get('idempotent-replayed'), `first: ${seen(first)}; replay: ${seen(replay)}`).toBe(
      'true',
    );
    expect(replay.body.score_id).toBe(first.body.score_id);
  });

  it('answers promptly while Redis hangs, and resumes shared controls when it recovers', async () => {
    await nextWholeSecond();
    const traffic = steadyTraffic(nodes, apiKey, 50);
    await untilEveryNode(nodes, traffic.replies, 'shared controls on every node', (r) => !unavailable(r));
    redis.pause();
    const paused = traffic.replies.length;
    await untilEveryNode(nodes, traffic.replies, 'local controls on every node', unavailable, paused);
    // Frozen on: each node's once-a-second probe waits on the hung Redis again meanwhile.
    await holdLoadFor(1_500);
    redis.resume();
    const resumed = traffic.replies.length;
    await untilEveryNode(
      nodes,
      traffic.replies,
      'shared controls again on every node',
      (r) => !unavailable(r) && r.ms < 100,
      resumed,
    );
    const replies = await traffic.stop();
    for (const r of replies) expect([200, 429]).toContain(r.status);
    // Stalled commands give up after the client's 250 ms timeout and the node answers locally;
    // only one probe per node per second waits for Redis.
    expect(Math.max(...replies.map((r) => r.ms))).toBeLessThan(1000);
    expect(replies.filter((r) => unavailable(r) && r.status === 200).length).toBeGreaterThan(0);
  });
});
