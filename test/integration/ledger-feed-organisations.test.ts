/**
 * The seed or consortium feed is evidence of its own and never stands in for a second
 * organisation (docs/security.md "Ledger trust"): a number the feed lists once, reported by one
 * organisation, stays within the one-organisation ceiling in another organisation's view, and is
 * never `critical` (block) for it. End to end: the refresher's one-shot publishes the seed feed,
 * the organisation's outcome goes through Kafka to the sink's ledger learner, and the other
 * organisation's score and explain come from a running API node. Everything under a prefix of
 * its own, so the ledger's 180-day votes on this fixed number never meet another run's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScoreResponse } from '../../shared/contract/response.ts';
import { unlinkPrefix } from '../../infra/harness/feed-server.ts';
import { orgWithKey, redis, scoreCall } from '../../infra/harness/fixtures.ts';
import { startApi, startSink, waitFor, type ApiNode, type Service } from '../../infra/harness/processes.ts';
import { sinkGroupAtEnd } from '../../infra/harness/sink-group.ts';
import { publishSnapshots } from '../../infra/harness/snapshots.ts';

// One report in infra/feeds/reputation.csv (an Ofcom drama number, never a subscriber).
const LISTED_ONCE = { phone_number: '+447700900456' };
const BAND_ORDER = ['minimal', 'low', 'medium', 'high', 'critical'];
const higher = (a: string, b: string) => (BAND_ORDER.indexOf(a) >= BAND_ORDER.indexOf(b) ? a : b);

type Reputation = { reports: number; feed_reports: number; outcome_reports: number; own_report?: boolean };

describe('a feed entry and one organisation count as one organisation', () => {
  // Under frs:cap, where the services' Redis users may read and write snapshots and votes.
  const prefix = `frs:cap:ledger-feed-orgs-${process.pid}`;
  let node: ApiNode;
  let sink: Service;

  beforeAll(async () => {
    await publishSnapshots({ CAPABILITY_KEY_PREFIX: prefix });
    // The ledger gets a second on a loaded machine.
    node = await startApi({ CAPABILITY_KEY_PREFIX: prefix, LEDGER_TIMEOUT_MS: '1000' });
    sink = startSink({ ...(await sinkGroupAtEnd()), CAPABILITY_KEY_PREFIX: prefix });
  }, 300_000);

  afterAll(async () => {
    await sink?.stop();
    await node?.stop();
    const r = redis();
    await unlinkPrefix(r, prefix);
    r.disconnect();
  });

  async function score(apiKey: string) {
    const res = await scoreCall(node.url, apiKey, { subject: LISTED_ONCE });
    expect(res.status).toBe(200);
    const body = (await res.json()) as ScoreResponse;
    return { body, ledger: body.components!.find((c) => c.component === 'reputation_ledger')! };
  }

  async function explained(apiKey: string, scoreId: string): Promise<Reputation | undefined> {
    const res = await fetch(`${node.url}/v1/explain/${scoreId}`, {
      headers: { authorization: `Bearer ${apiKey}` },
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { evidence: { reputation?: Reputation } }).evidence.reputation;
  }

  it("one organisation's report on a number the feed lists once never makes it critical for another", async () => {
    const [a, c] = await Promise.all([
      orgWithKey('bureau', { rateRps: 1000 }),
      orgWithKey('bureau', { rateRps: 1000 }),
    ]);
    // C's view with the feed's entry alone.
    const before = await score(c.apiKey);
    expect(before.ledger).toMatchObject({ verdict: 'elevated', detail: 'REPUTATION_REPORTED' });
    expect(await explained(c.apiKey, before.body.score_id)).toMatchObject({
      reports: 1,
      feed_reports: 1,
      outcome_reports: 0,
    });

    // A scores the number and reports its own score once: a vote that counts for everyone.
    const own = await score(a.apiKey);
    const res = await fetch(`${node.url}/v1/outcomes`, {
      method: 'POST',
      headers: { authorization: `Bearer ${a.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ score_id: own.body.score_id, outcome: 'confirmed_fraud' }),
    });
    expect(res.status, await res.clone().text()).toBe(202);

    const after = await waitFor(
      "A's report in C's view",
      async () => {
        const s = await score(c.apiKey);
        const reputation = await explained(c.apiKey, s.body.score_id);
        return reputation?.outcome_reports === 1 ? { ...s, reputation } : null;
      },
      60_000,
      250,
    );
    expect(after.reputation).toMatchObject({
      reports: 2,
      feed_reports: 1,
      outcome_reports: 1,
      own_report: false,
    });
    // The report still adds its points; the band stays within the one-organisation ceiling.
    expect(after.body.score).toBeGreaterThanOrEqual(before.body.score);
    expect(after.body.band).not.toBe('critical');
    expect(after.body.recommended_action).not.toBe('block');
    expect(after.body.band).toBe(higher(before.body.band, 'medium'));
  });
});
