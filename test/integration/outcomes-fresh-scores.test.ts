import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orgWithKey, scoreCall } from '../../infra/harness/fixtures.ts';
import { startNode, type InProcessNode } from '../helpers/in-process.ts';

/** A number no other test uses (only non-counting outcomes are reported, but stay apart anyway). */
const freshNumber = () => `+4479${String(randomInt(10 ** 8)).padStart(8, '0')}`;

/**
 * "Score, decline, report" at volume: a bureau organisation scores 160 times within a second and
 * reports an outcome on each score it got back, on the other node. The explain-copy share is set
 * far below the burst, so most scores have no explain copy and none is in ClickHouse yet: finding
 * them must not depend on either (it used to answer 503 E_HISTORY_BUSY and 404 past the share).
 */
describe('an outcome on a fresh score, past the explain-copy share', () => {
  const nodes: InProcessNode[] = [];
  beforeAll(async () => {
    const env = { LEDGER_TIMEOUT_MS: '1000', EXPLAIN_COPIES_PER_ORG_S: '5' };
    nodes.push(...(await Promise.all([startNode(env), startNode(env)])));
  });
  afterAll(async () => {
    await Promise.all(nodes.map((n) => n.stop()));
  });

  it('answers 202 to an outcome by score_id on each of 160 scores made within a second, on either node', async () => {
    const org = await orgWithKey('bureau', { rateRps: 200, credits: 10_000 });
    const node = (i: number) => nodes[i % 2]!.url;

    const started = Date.now();
    const scored = await Promise.all(
      Array.from({ length: 160 }, async (_, i) => {
        const res = await scoreCall(node(i), org.apiKey, { subject: { phone_number: freshNumber() } });
        expect(res.status, await res.clone().text()).toBe(200);
        return ((await res.json()) as { score_id: string }).score_id;
      }),
    );
    const burstMs = Date.now() - started;

    // Each report goes to the node that did not make the score, all at once.
    const statuses = await Promise.all(
      scored.map(async (scoreId, i) => {
        const res = await fetch(`${node(i + 1)}/v1/outcomes`, {
          method: 'POST',
          headers: { authorization: `Bearer ${org.apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ score_id: scoreId, outcome: 'suspected_fraud' }),
        });
        const body = (await res.json()) as { errors?: { code: string }[] };
        return res.status === 202 ? '202' : `${res.status} ${body.errors?.[0]?.code ?? ''}`;
      }),
    );
    const counts: Record<string, number> = {};
    for (const s of statuses) counts[s] = (counts[s] ?? 0) + 1;
    expect(counts, `160 scores in ${burstMs} ms`).toEqual({ '202': 160 });
  });
});
