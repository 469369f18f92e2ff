/**
 * The reputation ledger learns from outcomes under its trust rules: a report weighs on other
 * organisations only where its reporter had scored the subject, each organisation counts once
 * (number and address together), one organisation lifts a clean subject to `medium` at most and
 * two to `high`; a report reaches every API node within 10 s; not_fraud and an operator's
 * withdrawal take a vote back; explain shows how many counted, never who.
 */
import { execFileSync } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScoreResponse } from '../../shared/contract/response.ts';
import { createClickHouse } from '../../shared/clients/clickhouse.ts';
import { cfg, freshAddress, freshMobile, orgWithKey, scoreCall } from '../../infra/harness/fixtures.ts';
import { startApi, startSink, waitFor, type ApiNode, type Service } from '../../infra/harness/processes.ts';
import { sinkGroupAtEnd } from '../../infra/harness/sink-group.ts';

/** Within this long of the 202, every node's score must show the report (the contract's 10 s). */
const REACH_MS = 10_000;
const BAND_ORDER = ['minimal', 'low', 'medium', 'high', 'critical'];
const atMost = (band: string, ceiling: string) => BAND_ORDER.indexOf(band) <= BAND_ORDER.indexOf(ceiling);

type Reputation = { reports: number; outcome_reports: number; own_report?: boolean };

describe('the reputation ledger learns from outcomes under its trust rules', () => {
  const ch = createClickHouse(cfg.CLICKHOUSE_URL);
  let nodes: ApiNode[] = [];
  let sink: Service;

  beforeAll(async () => {
    // Scoring on both nodes reads the same ledger Redis; the ledger gets a second on a loaded machine.
    nodes = await Promise.all([
      startApi({ LEDGER_TIMEOUT_MS: '1000' }),
      startApi({ LEDGER_TIMEOUT_MS: '1000' }),
    ]);
    sink = startSink(await sinkGroupAtEnd());
    // The sink consumes scores (their subjects reach ClickHouse) before any test relies on it.
    const warm = await orgWithKey('verify', { rateRps: 1000 });
    await score(nodes[0]!, warm.apiKey, { phone_number: freshMobile() });
    await waitFor(
      'the sink storing scored subjects',
      async () => (await scoredDays(warm.orgId)) > 0,
      90_000,
      250,
    );
  });

  /** Rows of the organisation in scored_subjects: what the trust rule reads. */
  async function scoredDays(orgId: string): Promise<number> {
    const rs = await ch.query({
      query: `SELECT count() AS n FROM ${cfg.CLICKHOUSE_DATABASE}.scored_subjects WHERE org_id = '${orgId}'`,
      format: 'JSONEachRow',
    });
    return Number((await rs.json<{ n: string }>())[0]!.n);
  }

  afterAll(async () => {
    await sink?.stop();
    await Promise.all(nodes.map((n) => n.stop()));
    await ch.close();
  });

  const report = async (node: ApiNode, apiKey: string, body: unknown): Promise<string> => {
    const res = await fetch(`${node.url}/v1/outcomes`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(res.status, await res.clone().text()).toBe(202);
    return ((await res.json()) as { outcome_id: string }).outcome_id;
  };

  type Subject = { phone_number?: string; ip_address?: string };

  async function score(node: ApiNode, apiKey: string, subject: Subject) {
    const res = await scoreCall(node.url, apiKey, { subject });
    expect(res.status).toBe(200);
    const body = (await res.json()) as ScoreResponse;
    return { body, ledger: body.components!.find((c) => c.component === 'reputation_ledger')! };
  }

  /** The ledger evidence of a score, as its explain shows it. */
  async function explained(node: ApiNode, apiKey: string, scoreId: string) {
    const res = await fetch(`${node.url}/v1/explain/${scoreId}`, {
      headers: { authorization: `Bearer ${apiKey}` },
    });
    expect(res.status).toBe(200);
    const text = await res.text();
    return {
      text,
      reputation: (JSON.parse(text) as { evidence: { reputation?: Reputation } }).evidence.reputation,
    };
  }

  /** Until a fresh score on each node counts `organisations` reporting organisations for the viewer. */
  async function seenOnBothNodes(apiKey: string, subject: Subject, organisations: number, since: number) {
    const scores = await waitFor(
      `${organisations} organisation(s) on both nodes`,
      async () => {
        const both = await Promise.all(nodes.map((n) => score(n, apiKey, subject)));
        const counted = await Promise.all(both.map((s, i) => explained(nodes[i]!, apiKey, s.body.score_id)));
        return counted.every((c) => c.reputation?.outcome_reports === organisations)
          ? both.map((s, i) => ({ ...s, explain: counted[i]! }))
          : null;
      },
      REACH_MS * 3,
      200,
    );
    return { scores, tookMs: Date.now() - since };
  }

  it("a report about a subject its organisation never scored weighs on that organisation's own scores only", async () => {
    const [reporter, other] = await Promise.all([
      orgWithKey('bureau', { rateRps: 1000 }),
      orgWithKey('bureau', { rateRps: 1000 }),
    ]);
    const subject = { phone_number: freshMobile() };
    const before = await score(nodes[0]!, other.apiKey, subject);
    expect(before.ledger.verdict).toBe('no_match');

    await report(nodes[0]!, reporter.apiKey, { subject, outcome: 'confirmed_fraud' });
    const own = await seenOnBothNodes(reporter.apiKey, subject, 1, Date.now());
    for (const s of own.scores) {
      expect(s.explain.reputation).toMatchObject({ outcome_reports: 1, own_report: true });
      expect(s.ledger.verdict).toBe('elevated');
    }
    // The learner has applied it (the reporter sees it): the other organisation still does not.
    for (const node of nodes) {
      const after = await score(node, other.apiKey, subject);
      expect(after.ledger.verdict).toBe('no_match');
      expect(after.body.score).toBe(before.body.score);
      expect(after.body.band).toBe(before.body.band);
      expect((await explained(node, other.apiKey, after.body.score_id)).reputation).toMatchObject({
        outcome_reports: 0,
        own_report: false,
      });
    }
  });

  const hex16 = () => randomInt(0x10000).toString(16);
  /** Fresh addresses the range feeds flag (drawn from wide IPv6 ranges: votes last 180 days). */
  const flagged = {
    // Hetzner Online's 2a01:4f8::/31 in the hosting ranges.
    hosting: () => `2a01:4f8:${hex16()}:${hex16()}::${hex16()}`,
    // Surfshark's own 2a09:a704::/30 in the VPN ranges (a provider-owned network: the list flags
    // it whole, where a hosting network such as M247's has only its listed servers flagged).
    vpn: () => `2a09:a704:${randomInt(0x1000).toString(16)}:${hex16()}::${hex16()}`,
  };
  const higher = (a: string, b: string) => (BAND_ORDER.indexOf(a) >= BAND_ORDER.indexOf(b) ? a : b);

  /** `org` scores the subject and reports its own score as fraud: a vote that counts for everyone. */
  async function scoredAndReported(org: { apiKey: string }, subject: Subject) {
    const own = await score(nodes[0]!, org.apiKey, subject);
    await report(nodes[0]!, org.apiKey, { score_id: own.body.score_id, outcome: 'confirmed_fraud' });
  }

  it.each([
    ['a hosting address', () => ({ ip_address: flagged.hosting() }), 'low'],
    ['a VPN address', () => ({ ip_address: flagged.vpn() }), 'medium'],
    ['a clean number', () => ({ phone_number: freshMobile() }), 'minimal'],
  ])(
    "%s reported by one organisation is at most medium (or its own band) in another's view; two may make it high",
    async (_what, draw, atLeast) => {
      const [viewer, a, b] = await Promise.all([
        orgWithKey('bureau', { rateRps: 1000 }),
        orgWithKey('bureau', { rateRps: 1000 }),
        orgWithKey('bureau', { rateRps: 1000 }),
      ]);
      const subject: Subject = draw();
      const before = await score(nodes[0]!, viewer.apiKey, subject);
      expect(before.ledger.verdict).toBe('no_match');
      // The feeds flag it as the case says (a hosting address is at least `low`, a VPN one `medium`).
      expect(atMost(atLeast, before.body.band)).toBe(true);

      await scoredAndReported(a, subject);
      const one = await seenOnBothNodes(viewer.apiKey, subject, 1, Date.now());
      for (const s of one.scores) {
        expect(s.body.score).toBeGreaterThan(before.body.score);
        expect(s.body.band).toBe(higher(before.body.band, 'medium'));
      }

      await scoredAndReported(b, subject);
      const two = await seenOnBothNodes(viewer.apiKey, subject, 2, Date.now());
      for (const s of two.scores) expect(atMost(s.body.band, 'high')).toBe(true);
      // Two organisations may lift an address the feeds flag to `high`.
      if (subject.ip_address) for (const s of two.scores) expect(s.body.band).toBe('high');
    },
  );

  it('reports of organisations that scored the subject count once each, within the ceiling, and can be taken back', async () => {
    const [viewer, a, c, d] = await Promise.all([
      orgWithKey('bureau', { rateRps: 1000 }),
      orgWithKey('verify', { rateRps: 1000 }),
      orgWithKey('verify', { rateRps: 1000 }),
      orgWithKey('assess', { rateRps: 1000 }),
    ]);
    const subject = { phone_number: freshMobile(), ip_address: freshAddress() };
    const before = await score(nodes[0]!, viewer.apiKey, subject);
    expect(before.ledger.verdict).toBe('no_match');

    // A reports its own score of the number and address: one vote for each, one organisation.
    const aScore = await score(nodes[1]!, a.apiKey, subject);
    const aOutcome = await report(nodes[0]!, a.apiKey, {
      score_id: aScore.body.score_id,
      outcome: 'chargeback',
    });
    const one = await seenOnBothNodes(viewer.apiKey, subject, 1, Date.now());
    expect(one.tookMs).toBeLessThan(REACH_MS);
    for (const s of one.scores) {
      expect(s.ledger.verdict).toBe('elevated');
      expect(atMost(s.body.band, 'medium')).toBe(true);
      expect(s.explain.reputation).toMatchObject({ reports: 1, own_report: false });
    }

    // C scored the subject earlier (its history has it), then reports by subject.
    await score(nodes[0]!, c.apiKey, subject);
    await waitFor("C's score in history", async () => (await scoredDays(c.orgId)) === 2, 30_000, 200);
    await report(nodes[1]!, c.apiKey, { subject, outcome: 'confirmed_fraud' });
    const two = await seenOnBothNodes(viewer.apiKey, subject, 2, Date.now());
    for (const s of two.scores) {
      expect(s.ledger.verdict).toBe('elevated');
      expect(atMost(s.body.band, 'high')).toBe(true);
    }

    // A third organisation that scored it: the ledger alone may now say adverse.
    await score(nodes[1]!, d.apiKey, { phone_number: subject.phone_number });
    await waitFor("D's score in history", async () => (await scoredDays(d.orgId)) === 1, 30_000, 200);
    await report(nodes[0]!, d.apiKey, {
      subject: { phone_number: subject.phone_number },
      outcome: 'spam_or_abuse',
    });
    const three = await seenOnBothNodes(viewer.apiKey, subject, 3, Date.now());
    for (const s of three.scores) expect(s.ledger.verdict).toBe('adverse');
    for (const org of [a, c, d]) expect(three.scores[0]!.explain.text).not.toContain(org.orgId);

    // C takes its report back; an operator withdraws A's.
    await report(nodes[1]!, c.apiKey, { subject, outcome: 'not_fraud' });
    await seenOnBothNodes(viewer.apiKey, subject, 2, Date.now());
    const withdrawn = await waitFor(
      "A's outcome stored, then withdrawn",
      async () => {
        try {
          const out = execFileSync(
            process.execPath,
            [
              'services/admin/cli.ts',
              'ledger',
              'withdraw',
              '--outcome',
              aOutcome,
              '--reason',
              'test: false report',
            ],
            { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
          );
          return JSON.parse(out) as { org_id: string; votes_withdrawn: number };
        } catch {
          return null;
        }
      },
      30_000,
      500,
    );
    expect(withdrawn).toMatchObject({ org_id: a.orgId, votes_withdrawn: 2, superseded: [] });
    await seenOnBothNodes(viewer.apiKey, subject, 1, Date.now());
    const rs = await ch.query({
      query: `SELECT org_id, reason FROM ${cfg.CLICKHOUSE_DATABASE}.outcome_withdrawals WHERE outcome_id = '${aOutcome}'`,
      format: 'JSONEachRow',
    });
    expect(await rs.json()).toEqual([{ org_id: a.orgId, reason: 'test: false report' }]);
  });
});
