import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorBody } from '../../shared/contract/errors.ts';
import { OrgStore } from '../../shared/orgs/store.ts';
import { admin, orgWithKey, redis, scoreCall } from '../../infra/harness/fixtures.ts';
import { scoreTopicEnd, streamedScoreIds } from '../../infra/harness/kafka-records.ts';
import { startNode, TestClock, type InProcessNode as ApiNode } from '../helpers/in-process.ts';
import { waitFor } from '../../infra/harness/processes.ts';

const BODY = { subject: { phone_number: '+447911123456', ip_address: '81.2.69.142' } };

interface Reply {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

async function call(node: ApiNode, apiKey: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await scoreCall(node.url, apiKey, body, headers);
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
}

/** `n` requests at once, spread round-robin over the nodes. */
function burst(nodes: ApiNode[], n: number, apiKey: string, headers: Record<string, string> = {}) {
  return Promise.all(
    Array.from({ length: n }, (_, i) => call(nodes[i % nodes.length]!, apiKey, BODY, headers)),
  );
}

const count = (replies: Reply[], status: number) => replies.filter((r) => r.status === status).length;

describe('cluster controls across three API nodes on the shared Redis', () => {
  let nodes: ApiNode[] = [];
  const r = redis();
  const store = new OrgStore(r);

  // One clock for the three nodes: a burst falls in one rate window however slow the machine is,
  // and the next window is one `advance` away.
  const clock = new TestClock();

  beforeAll(async () => {
    const start = () => startNode({}, { now: clock.now });
    nodes = await Promise.all([start(), start(), start()]);
    // Open connections to every node first, so the bursts below are not slowed by handshakes.
    await Promise.all(nodes.map((n) => fetch(`${n.url}/livez`)));
  });

  afterAll(async () => {
    await Promise.all(nodes.map((n) => n.stop()));
    r.disconnect();
  });

  /** A burst of `n` for a fresh org with `rateRps`, all inside the current rate window. */
  async function burstInOneSecond(n: number, rateRps: number) {
    const org = await orgWithKey('verify', { rateRps });
    return { org, replies: await burst(nodes, n, org.apiKey) };
  }

  it('lets exactly rate_rps requests of a 3x burst through within one second, across nodes', async () => {
    const { org, replies } = await burstInOneSecond(60, 20);

    expect(count(replies, 200)).toBe(20);
    expect(count(replies, 429)).toBe(40);
    const ok = replies.filter((x) => x.status === 200);
    // Every slot of the window was handed out once: the burst fell in a single shared window.
    expect(ok.map((x) => Number(x.headers.get('x-ratelimit-remaining'))).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 20 }, (_, i) => i),
    );
    for (const x of ok) expect(x.headers.get('x-ratelimit-limit')).toBe('20');
    for (const x of replies.filter((y) => y.status === 429)) {
      expect(x.headers.get('x-ratelimit-limit')).toBe('20');
      expect(x.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(x.headers.get('retry-after')).toMatch(/^[1-9][0-9]*$/);
      expect(ErrorBody.parse(x.body).errors[0]!.code).toBe('E_RATE_LIMITED');
    }
    // 429s are not billed.
    expect((await store.creditsUsed(org.orgId)).used).toBe(20);

    clock.advance(1000);
    const next = await call(nodes[0]!, org.apiKey, BODY);
    expect(next.status).toBe(200);
  });

  it('stops at allowance + grace across nodes; 402s are neither billed nor streamed', async () => {
    const org = await orgWithKey('assess', { rateRps: 1000, credits: 10, overdraft: 2 });
    const from = await scoreTopicEnd();
    const replies = await burst(nodes, 20, org.apiKey);

    expect(count(replies, 200)).toBe(12);
    expect(count(replies, 402)).toBe(8);
    const remaining = replies
      .filter((x) => x.status === 200)
      .map((x) => Number(x.headers.get('x-credits-remaining')))
      .sort((a, b) => a - b);
    expect(remaining).toEqual([-2, -1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    for (const x of replies.filter((y) => y.status === 402)) {
      expect(ErrorBody.parse(x.body).errors[0]!.code).toBe('E_CREDITS_EXHAUSTED');
      expect(x.headers.get('x-credits-remaining')).toBe('-2');
      expect(x.headers.get('x-ratelimit-limit')).toBe('1000');
    }
    expect((await store.creditsUsed(org.orgId)).used).toBe(12);

    const shown = await admin('org', 'show', '--org', org.orgId);
    expect(shown).toMatchObject({ credits_used: 12, credits_remaining: -2 });

    const scored = replies.filter((x) => x.status === 200).map((x) => x.body.score_id);
    expect(new Set(await streamedScoreIds(org.orgId, from, 12))).toEqual(new Set(scored));
  });

  it('scores, bills and streams one Idempotency-Key once, however many nodes it reaches at once', async () => {
    const org = await orgWithKey('assess', { rateRps: 1000 });
    const from = await scoreTopicEnd();
    const key = { 'Idempotency-Key': `order-${Date.now()}` };
    const replies = await burst(nodes, 12, org.apiKey, key);

    const fresh = replies.filter((x) => x.status === 200 && !x.headers.get('idempotent-replayed'));
    expect(fresh).toHaveLength(1);
    const scoreId = fresh[0]!.body.score_id;
    for (const x of replies.filter((y) => y !== fresh[0])) {
      if (x.status === 200) {
        expect(x.headers.get('idempotent-replayed')).toBe('true');
        expect(x.body).toEqual(fresh[0]!.body);
      } else {
        expect(x.status).toBe(409);
        expect(ErrorBody.parse(x.body).errors[0]!.code).toBe('E_IDEMPOTENCY_IN_PROGRESS');
        expect(x.headers.get('retry-after')).toBe('1');
      }
    }

    // Later retries, on any node and with the keys in another order, replay the first answer.
    const reordered = {
      subject: { ip_address: BODY.subject.ip_address, phone_number: BODY.subject.phone_number },
    };
    for (const node of nodes) {
      const again = await call(node, org.apiKey, reordered, key);
      expect(again.status).toBe(200);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.body.score_id).toBe(scoreId);
      expect(again.headers.get('x-ratelimit-limit')).toBe('1000');
    }

    const other = await call(nodes[1]!, org.apiKey, { subject: { ip_address: '1.1.1.1' } }, key);
    expect(other.status).toBe(409);
    expect(ErrorBody.parse(other.body).errors[0]).toMatchObject({
      code: 'E_IDEMPOTENCY_MISMATCH',
      field: 'Idempotency-Key',
    });

    // The same key in another organisation is another key.
    const org2 = await orgWithKey('assess');
    const elsewhere = await call(nodes[2]!, org2.apiKey, { subject: { ip_address: '1.1.1.1' } }, key);
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.headers.get('idempotent-replayed')).toBeNull();

    expect((await store.creditsUsed(org.orgId)).used).toBe(1);
    expect(await streamedScoreIds(org.orgId, from, 1)).toEqual([scoreId]);
  });

  it('frees an Idempotency-Key after a 4xx, and only a 200 is kept', async () => {
    const org = await orgWithKey('verify', { rateRps: 100 });
    const key = { 'Idempotency-Key': `retry-${Date.now()}` };
    const bad = await call(nodes[0]!, org.apiKey, { subject: { phone_number: 'not a phone' } }, key);
    expect(bad.status).toBe(422);
    const good = await call(nodes[1]!, org.apiKey, BODY, key);
    expect(good.status).toBe(200);
    expect(good.headers.get('idempotent-replayed')).toBeNull();

    const tooLong = await call(nodes[2]!, org.apiKey, BODY, { 'Idempotency-Key': 'k'.repeat(129) });
    expect(tooLong.status).toBe(422);
    expect(ErrorBody.parse(tooLong.body).errors[0]!.field).toBe('Idempotency-Key');
    expect((await store.creditsUsed(org.orgId)).used).toBe(1);
  });

  it('revocation and limit changes reach every node within a second', async () => {
    const org = await orgWithKey('verify', { rateRps: 50 });
    for (const node of nodes) expect((await call(node, org.apiKey, BODY)).status).toBe(200);

    // Each node must show the change within a second of the admin command returning.
    await admin('org', 'update', '--org', org.orgId, '--rate-rps', '7');
    clock.advance(1000);
    for (const node of nodes)
      await waitFor(
        'new rate limit on every node',
        async () => (await call(node, org.apiKey, BODY)).headers.get('x-ratelimit-limit') === '7',
        1_000,
        50,
      );

    await admin('key', 'revoke', '--key-id', org.keyId);
    for (const node of nodes) {
      await waitFor(
        'revocation on every node',
        async () => (await call(node, org.apiKey, BODY)).status === 401,
        1_000,
        50,
      );
      const res = await call(node, org.apiKey, BODY);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
    }
  });
});
