/**
 * The reputation ledger learns from outcomes: reports from organisations reach the ledger every
 * API node reads within 10 s, count once per organisation by its latest outcome, and explain
 * shows how many counted, never who.
 */
import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  LedgerReports,
  ledgerReportCountsKey,
  subjectDigests,
} from '../../shared/capabilities/ledger-reports.ts';
import type { ScoreResponse } from '../../shared/contract/response.ts';
import { newOutcomeId } from '../../shared/ids.ts';
import { cfg, orgWithKey, redis, scoreCall } from '../helpers/fixtures.ts';
import { startApi, startSink, waitFor, type ApiNode, type Service } from '../helpers/processes.ts';

/** Within this long of the 202, every node's score must show the report (the contract's 10 s). */
const REACH_MS = 10_000;

const freshNumber = () => `+4479${String(randomInt(10 ** 8)).padStart(8, '0')}`;

describe('the reputation ledger learns from outcomes', () => {
  const r = redis();
  let nodes: ApiNode[] = [];
  let sink: Service;

  beforeAll(async () => {
    // Scoring on both nodes reads the same ledger Redis; the ledger gets a second on a loaded machine.
    nodes = await Promise.all([
      startApi({ LEDGER_TIMEOUT_MS: '1000' }),
      startApi({ LEDGER_TIMEOUT_MS: '1000' }),
    ]);
    sink = startSink();
  });

  afterAll(async () => {
    await sink?.stop();
    await Promise.all(nodes.map((n) => n.stop()));
    r.disconnect();
  });

  const report = async (node: ApiNode, apiKey: string, body: unknown) => {
    const res = await fetch(`${node.url}/v1/outcomes`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(res.status, await res.clone().text()).toBe(202);
  };

  async function score(node: ApiNode, apiKey: string, phone: string) {
    const res = await scoreCall(node.url, apiKey, { subject: { phone_number: phone } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as ScoreResponse;
    return { body, ledger: body.components!.find((c) => c.component === 'reputation_ledger')! };
  }

  /** The reports that counted for a score, as its explain shows them. */
  async function reportsCounted(node: ApiNode, apiKey: string, scoreId: string): Promise<number | undefined> {
    const res = await fetch(`${node.url}/v1/explain/${scoreId}`, {
      headers: { authorization: `Bearer ${apiKey}` },
    });
    if (res.status !== 200) return undefined;
    return ((await res.json()) as { evidence: { reputation?: { reports: number } } }).evidence.reputation
      ?.reports;
  }

  /** Until a fresh score on each node counted exactly `reports` reports for the subject. */
  async function seenOnBothNodes(apiKey: string, phone: string, reports: number, since: number) {
    const scores = await waitFor(
      `${reports} report(s) on both nodes`,
      async () => {
        const both = await Promise.all(nodes.map((n) => score(n, apiKey, phone)));
        const counted = await Promise.all(
          both.map((s, i) => reportsCounted(nodes[i]!, apiKey, s.body.score_id)),
        );
        return counted.every((c) => c === reports) ? both : null;
      },
      REACH_MS * 3,
      200,
    );
    return { scores, tookMs: Date.now() - since };
  }

  it('two organisations report a number: a new score rises on both nodes; a not_fraud withdraws one report', async () => {
    const [a, b, c] = await Promise.all([
      orgWithKey('bureau', { rateRps: 1000, credits: 1_000_000 }),
      orgWithKey('verify', { rateRps: 1000 }),
      orgWithKey('assess', { rateRps: 1000 }),
    ]);
    // The learner has joined its group and applies outcomes: a warm-up report lands in the ledger.
    const warm = freshNumber();
    await report(nodes[0]!, c.apiKey, { subject: { phone_number: warm }, outcome: 'spam_or_abuse' });
    await waitFor(
      'the ledger learner',
      async () =>
        (await r.hget(
          ledgerReportCountsKey(cfg.CAPABILITY_KEY_PREFIX),
          subjectDigests({ phone_number: warm })[0]!,
        )) === '1',
      90_000,
      250,
    );

    const phone = freshNumber();
    const before = await score(nodes[0]!, a.apiKey, phone);
    expect(before.ledger.verdict).toBe('no_match');

    // Org A reports its own score, three times over (it still counts once); org B by subject;
    // org C only suspects, which does not count.
    await report(nodes[0]!, a.apiKey, { score_id: before.body.score_id, outcome: 'confirmed_fraud' });
    await report(nodes[1]!, a.apiKey, { subject: { phone_number: phone }, outcome: 'chargeback' });
    await report(nodes[0]!, a.apiKey, { subject: { phone_number: phone }, outcome: 'confirmed_fraud' });
    await report(nodes[1]!, c.apiKey, { subject: { phone_number: phone }, outcome: 'suspected_fraud' });
    await report(nodes[1]!, b.apiKey, { subject: { phone_number: phone }, outcome: 'confirmed_fraud' });
    const reported = Date.now();

    const two = await seenOnBothNodes(a.apiKey, phone, 2, reported);
    expect(two.tookMs).toBeLessThan(REACH_MS);
    for (const s of two.scores) {
      expect(['elevated', 'adverse']).toContain(s.ledger.verdict);
      expect(s.body.score).toBeGreaterThan(before.body.score);
    }

    // Explain of the later score: how many reports counted, never which organisations.
    const explained = await fetch(`${nodes[1]!.url}/v1/explain/${two.scores[1]!.body.score_id}`, {
      headers: { authorization: `Bearer ${a.apiKey}` },
    });
    expect(explained.status).toBe(200);
    const text = await explained.text();
    expect(JSON.parse(text).evidence.reputation).toEqual({ reports: 2, feed_reports: 0, outcome_reports: 2 });
    for (const org of [a, b, c]) expect(text).not.toContain(org.orgId);

    await report(nodes[0]!, b.apiKey, { subject: { phone_number: phone }, outcome: 'not_fraud' });
    const withdrawn = Date.now();
    const one = await seenOnBothNodes(a.apiKey, phone, 1, withdrawn);
    expect(one.tookMs).toBeLessThan(REACH_MS);
    for (const s of one.scores) {
      expect(s.ledger.verdict).toBe('elevated');
      expect(s.body.score).toBeLessThanOrEqual(two.scores[0]!.body.score);
    }
  });

  it('counts each organisation once by its latest outcome, whatever the delivery order', async () => {
    const prefix = `frs-test-reports-${process.pid}`;
    const reports = new LedgerReports(r, prefix);
    const subject = { phone_number: freshNumber(), ip_address: '203.0.113.9' };
    const t = Date.now();
    const early = newOutcomeId(t);
    const late = newOutcomeId(t + 1000);
    // The later not_fraud arrives first; the earlier fraud report, delivered after it, is stale.
    expect(await reports.apply({ outcome_id: late, org_id: 'org_x', outcome: 'not_fraud', subject })).toEqual(
      [0, 0],
    );
    expect(
      await reports.apply({ outcome_id: early, org_id: 'org_x', outcome: 'confirmed_fraud', subject }),
    ).toEqual([-1, -1]);
    // Many reports from one organisation are one report; a re-delivered record changes nothing.
    const y = [newOutcomeId(t + 2000), newOutcomeId(t + 3000), newOutcomeId(t + 4000)];
    for (const id of y)
      await reports.apply({ outcome_id: id, org_id: 'org_y', outcome: 'chargeback', subject });
    expect(
      await reports.apply({ outcome_id: y[2]!, org_id: 'org_y', outcome: 'chargeback', subject }),
    ).toEqual([-1, -1]);
    expect(
      await reports.apply({
        outcome_id: newOutcomeId(t + 5000),
        org_id: 'org_z',
        outcome: 'spam_or_abuse',
        subject,
      }),
    ).toEqual([2, 2]);
    const key = ledgerReportCountsKey(prefix);
    expect(await r.hmget(key, ...subjectDigests(subject))).toEqual(['2', '2']);
    // Withdrawals down to nobody leave no field behind.
    await reports.apply({
      outcome_id: newOutcomeId(t + 6000),
      org_id: 'org_y',
      outcome: 'not_fraud',
      subject,
    });
    await reports.apply({
      outcome_id: newOutcomeId(t + 7000),
      org_id: 'org_z',
      outcome: 'not_fraud',
      subject,
    });
    expect(await r.hmget(key, ...subjectDigests(subject))).toEqual([null, null]);
    const keys = await r.keys(`${prefix}:*`);
    if (keys.length > 0) await r.del(...keys);
  });
});
