import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OUTCOME_ID_PATTERN, scoreIdTime } from '../../shared/ids.ts';
import { OrgStore } from '../../shared/orgs/store.ts';
import { explainKey } from '../../shared/audit/explain-cache.ts';
import { RECENT_BUCKET_MS, recentScoresKey } from '../../services/api/recent-scores.ts';
import { explainRedis, orgWithKey, redis, scoreCall } from '../../infra/harness/fixtures.ts';
import { waitFor } from '../../infra/harness/wait.ts';
import { startNode, TestClock } from '../helpers/in-process.ts';
import { documentValidator, servedDocument, startHarness, type Harness, type OpenApiDoc } from './harness.ts';

/**
 * A number no other test uses: reports of fraud reach the shared ledger once any sink runs, and
 * must not change what other tests score.
 */
const freshNumber = () => `+4479${String(randomInt(10 ** 8)).padStart(8, '0')}`;

/** Now, `n` calendar months back, written with the UTC offset `offset` (the instant is the same). */
function monthsAgo(n: number, offset: '+01:00' | 'Z' = 'Z'): string {
  const d = new Date();
  d.setUTCMonth(d.getUTCMonth() - n);
  if (offset === 'Z') return d.toISOString();
  const local = new Date(d.getTime() + 3_600_000).toISOString();
  return `${local.slice(0, 19)}${offset}`;
}

/** POST /v1/outcomes: validation, 404 on others' scores, Idempotency-Key, its own rate window, never billed. */
describe('POST /v1/outcomes', () => {
  let h: Harness;
  let doc: OpenApiDoc;
  const r = redis();
  beforeAll(async () => {
    h = await startHarness();
    doc = await servedDocument(h.api.url);
  });
  afterAll(async () => {
    r.disconnect();
    await h?.stop();
  });

  const report = (apiKey: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${h.api.url}/v1/outcomes`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });

  async function scoreId(apiKey: string): Promise<string> {
    const res = await scoreCall(h.api.url, apiKey, { subject: { phone_number: freshNumber() } });
    expect(res.status).toBe(200);
    return ((await res.json()) as { score_id: string }).score_id;
  }

  it('accepts an outcome about a score or a subject from every tier with 202 and an oc_ id', async () => {
    const accepted = documentValidator(doc, 'OutcomeAccepted');
    for (const tier of ['verify', 'assess', 'bureau'] as const) {
      const caller = h.callers[tier];
      for (const body of [
        {
          score_id: await scoreId(caller.apiKey),
          outcome: 'confirmed_fraud',
          note: 'n',
          client_reference: 'c',
        },
        {
          subject: { phone_number: freshNumber() },
          outcome: 'suspected_fraud',
          occurred_at: monthsAgo(12, '+01:00'),
        },
      ]) {
        const before = Date.now();
        const res = await report(caller.apiKey, body);
        expect(res.status, await res.clone().text()).toBe(202);
        expect(res.headers.get('x-ratelimit-limit')).toBe('100000');
        expect(res.headers.get('x-credits-remaining')).toBeNull();
        const json = (await res.json()) as { outcome_id: string; received_at: string };
        expect(accepted.safeParse(json).success).toBe(true);
        expect(json.outcome_id).toMatch(OUTCOME_ID_PATTERN);
        expect(Date.parse(json.received_at)).toBeGreaterThanOrEqual(before - 1000);
      }
    }
  });

  it('reports every violation in one 422, unknown fields included, in the contract error shape', async () => {
    const errorBody = documentValidator(doc, 'Error');
    const res = await report(
      h.callers.assess.apiKey,
      {
        outcome: 'fraudish',
        occurred_at: new Date(Date.now() + 3_600_000).toISOString(),
        note: 'x'.repeat(1025),
        client_reference: 'y'.repeat(257),
        tag: 'chargeback',
      },
      { 'idempotency-key': 'k'.repeat(129) },
    );
    expect(res.status).toBe(422);
    const json = (await res.json()) as { errors: { code: string; field?: string }[] };
    expect(errorBody.safeParse(json).success).toBe(true);
    const fields = json.errors.map((e) => `${e.code}:${e.field ?? ''}`).sort();
    expect(fields).toEqual(
      [
        'E_UNKNOWN_FIELD:tag',
        'E_VALIDATION:outcome',
        'E_VALIDATION:occurred_at',
        'E_VALIDATION:note',
        'E_VALIDATION:client_reference',
        'E_INVALID_IDEMPOTENCY_KEY:Idempotency-Key',
        // Neither score_id nor subject: a violation of the body as a whole.
        'E_VALIDATION:',
      ].sort(),
    );
    const neither = await report(h.callers.assess.apiKey, { outcome: 'not_fraud' });
    expect(neither.status).toBe(422);
    const badIds = await report(h.callers.assess.apiKey, {
      score_id: 'sc_nope',
      subject: { phone_number: '07911' },
      outcome: 'not_fraud',
      occurred_at: 'yesterday',
    });
    expect(
      ((await badIds.json()) as { errors: { field: string }[] }).errors.map((e) => e.field).sort(),
    ).toEqual(['occurred_at', 'score_id', 'subject.phone_number'].sort());
    expect((await report(h.callers.assess.apiKey, '{"outcome":')).status).toBe(400);
    expect((await report('frs_live_nope', { outcome: 'not_fraud' })).status).toBe(401);
    expect((await fetch(`${h.api.url}/v1/outcomes`)).status).toBe(405);
  });

  it('422s a member sent twice and an Idempotency-Key that is not visible ASCII, naming each', async () => {
    const errorBody = documentValidator(doc, 'Error');
    const phone = freshNumber();
    // Taken as the last (`not_fraud`), this withdrew the report it seemed to make.
    const twice = await report(
      h.callers.assess.apiKey,
      `{"subject":{"phone_number":"${phone}"},"outcome":"confirmed_fraud","outcome":"not_fraud"}`,
    );
    expect(twice.status).toBe(422);
    const json = (await twice.json()) as { errors: { code: string; field?: string; message: string }[] };
    expect(errorBody.safeParse(json).success).toBe(true);
    expect(json.errors).toEqual([
      { code: 'E_DUPLICATE_KEY', field: 'outcome', message: expect.stringMatching(/more than once/) },
    ]);
    for (const key of ['oc\tkey', `caf\u00e9-${Date.now()}`]) {
      const res = await report(
        h.callers.assess.apiKey,
        { subject: { phone_number: phone }, outcome: 'not_fraud' },
        { 'idempotency-key': key },
      );
      expect(res.status, JSON.stringify(key)).toBe(422);
      expect(((await res.json()) as { errors: unknown[] }).errors).toEqual([
        expect.objectContaining({ code: 'E_INVALID_IDEMPOTENCY_KEY', field: 'Idempotency-Key' }),
      ]);
    }
  });

  it('422s an occurred_at more than 13 months ago, however far back, and accepts 12 months ago', async () => {
    const body = (occurred_at: string) => ({
      subject: { phone_number: freshNumber() },
      outcome: 'suspected_fraud',
      occurred_at,
    });
    for (const occurredAt of ['1969-12-31T23:59:59Z', '2001-01-01T00:00:00Z', monthsAgo(14)]) {
      const res = await report(h.callers.assess.apiKey, body(occurredAt));
      expect(res.status, occurredAt).toBe(422);
      const json = (await res.json()) as { errors: { code: string; field?: string; message: string }[] };
      expect(
        json.errors.map((e) => [e.code, e.field]),
        occurredAt,
      ).toEqual([['E_VALIDATION', 'occurred_at']]);
      expect(json.errors[0]!.message).toMatch(/13 months/);
    }
    expect((await report(h.callers.assess.apiKey, body(monthsAgo(12)))).status).toBe(202);
  });

  it('404s a score of another organisation, an unknown score, and a score id past retention', async () => {
    const mine = await scoreId(h.callers.bureau.apiKey);
    // An id whose UUIDv7 time is 14 months ago: past retention whatever is stored.
    const old = new Date();
    old.setUTCMonth(old.getUTCMonth() - 14);
    const ancient = `sc_${old.getTime().toString(16).padStart(12, '0')}7${'0'.repeat(19)}`;
    for (const id of [mine, 'sc_019a4f0e6b3c7d2e8f1a2b3c4d5e6f70', ancient]) {
      const res = await report(h.callers.assess.apiKey, { score_id: id, outcome: 'chargeback' });
      expect(res.status).toBe(404);
      expect(((await res.json()) as { errors: { code: string }[] }).errors[0]!.code).toBe(
        'E_SCORE_NOT_FOUND',
      );
    }
    expect((await report(h.callers.bureau.apiKey, { score_id: mine, outcome: 'chargeback' })).status).toBe(
      202,
    );
  });

  it('waits briefly for the index entry of a score made moments ago instead of a 404', async () => {
    const cache = explainRedis();
    try {
      const id = await scoreId(h.callers.assess.apiKey);
      // The entry is written without waiting for Redis: take it (and the explain copy, which would
      // answer too) away as if another node had not written them yet.
      const key = recentScoresKey(h.callers.assess.orgId, Math.floor(scoreIdTime(id)! / RECENT_BUCKET_MS));
      const entry = await waitFor('the index entry', () => cache.hget(key, id));
      await cache.del(explainKey(h.callers.assess.orgId, id));
      await cache.hdel(key, id);
      // The entry lands late: once the node looked for it, missed, and waits for it.
      const monitor = await cache.monitor();
      let missed = false;
      monitor.on('monitor', (_time: string, args: string[]) => {
        if (args[0]?.toLowerCase() === 'hget' && args[1] === key && args[2] === id) missed = true;
      });
      const reported = report(h.callers.assess.apiKey, { score_id: id, outcome: 'chargeback' });
      try {
        await waitFor('the node to look for the index entry', async () => missed, 5_000, 10);
      } finally {
        monitor.disconnect();
      }
      // The bucket may have been emptied (and removed) by the HDEL: put its expiry back too.
      await cache.multi().hset(key, id, entry).expire(key, 60).exec();
      expect((await reported).status).toBe(202);
    } finally {
      cache.disconnect();
    }
  });

  it('replays the first 202 for the same Idempotency-Key and body, 409 for another body; keys apart from scoring', async () => {
    const key = h.callers.verify.apiKey;
    const idem = { 'idempotency-key': `oc-${Date.now()}` };
    const phone = freshNumber();
    const body = { subject: { phone_number: phone }, outcome: 'spam_or_abuse' };
    const first = await report(key, body, idem);
    expect(first.status).toBe(202);
    const again = await report(key, { outcome: 'spam_or_abuse', subject: { phone_number: phone } }, idem);
    expect(again.status).toBe(202);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.json()).toEqual(await first.json());
    expect((await report(key, { ...body, outcome: 'not_fraud' }, idem)).status).toBe(409);
    // The same key on scoring is another namespace: scored, not a mismatch.
    expect((await scoreCall(h.api.url, key, { subject: { ip_address: '81.2.69.142' } }, idem)).status).toBe(
      200,
    );
    // A 404 frees the key again.
    const free = { 'idempotency-key': `oc-free-${Date.now()}` };
    expect(
      (await report(key, { score_id: 'sc_019a4f0e6b3c7d2e8f1a2b3c4d5e6f70', outcome: 'not_fraud' }, free))
        .status,
    ).toBe(404);
    expect((await report(key, body, free)).status).toBe(202);
  });

  it('rate-limits in a window of its own and never bills', async () => {
    // A node on a clock of the test's own: every request falls in the same one-second window.
    const clock = new TestClock();
    const node = await startNode({ LEDGER_TIMEOUT_MS: '1000' }, { now: clock.now });
    try {
      const org = await orgWithKey('verify', { rateRps: 3, credits: 10, overdraft: 0 });
      const store = new OrgStore(r);
      const body = { subject: { phone_number: freshNumber() }, outcome: 'suspected_fraud' };
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) {
        const res = await fetch(`${node.url}/v1/outcomes`, {
          method: 'POST',
          headers: { authorization: `Bearer ${org.apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        statuses.push(res.status);
        if (res.status === 429) expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      }
      expect(statuses).toEqual([202, 202, 202, 429, 429]);
      // The scoring window of the same second is untouched by the outcomes.
      const scoring = await scoreCall(node.url, org.apiKey, { subject: { ip_address: '81.2.69.142' } });
      expect(scoring.status).toBe(200);
      expect(scoring.headers.get('x-ratelimit-remaining')).toBe('2');
      expect((await store.creditsUsed(org.orgId)).used).toBe(1);
    } finally {
      await node.stop();
    }
  });
});
