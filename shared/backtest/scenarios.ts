/**
 * Scenario sets: labelled traffic a backtest replays when retained traffic does not (yet) hold the
 * case a candidate version is for. A set is a list of cases, each a number of scores of one kind
 * (what the subject's evidence says, at which moment) with the outcome that was reported on them.
 * `scenarioRecords` scores each as an API node scores it under the version in force (the engine,
 * the bureau tier's evidence, the audit record the API serializes) and gives the outcome records a
 * caller's reports make; `node loadtest/backtest-scenarios.ts` writes them, as the sink does, into
 * a ClickHouse database of the set's own, where `npm run backtest` replays them (docs/data.md
 * "Scenario sets").
 */
import { AuditRecord, AUDIT_RECORD_VERSION, serializeAuditRecord } from '../audit/record.ts';
import { phoneLiveLookup, type LiveLookupData } from '../capabilities/phone-live-lookup/index.ts';
import type { LookupFields } from '../capabilities/phone-live-lookup/result.ts';
import { shapeResponse } from '../contract/shape.ts';
import { newOutcomeId, newScoreId } from '../ids.ts';
import type { OutcomeRecord } from '../outcomes/record.ts';
import { calibrationSources } from '../scoring/calibration/build.ts';
import { score, type ScoreVersion } from '../scoring/engine.ts';
import { gatherEvidence, type EvidenceSources } from '../scoring/evidence.ts';
import { tierEvidence } from '../scoring/tier-evidence.ts';
import type { Moment } from '../vocabulary/scoring-input.ts';

const DAY_MS = 86_400_000;

/** Some scores of one kind, and what was reported on them. */
export interface ScenarioCase {
  /** What the case is, as the report's reader would say it. */
  name: string;
  count: number;
  moment: Moment;
  /** What the number's network says for the `i`th score of the case, made at `nowMs`. */
  network: (i: number, nowMs: number) => LookupFields;
  outcome: 'confirmed_fraud' | 'not_fraud';
}

export interface ScenarioSet {
  name: string;
  description: string;
  cases: ScenarioCase[];
}

/** An ordinary mobile as the network sees it: nothing recent. */
const quiet: LookupFields = {
  lineType: 'mobile',
  simSwap: 'none',
  porting: { ported: false },
  forwarding: false,
};
const swapped = (i: number): LookupFields => ({
  ...quiet,
  simSwap: i % 2 === 0 ? 'within_24h' : 'within_72h',
});
/** Ported 1 to 6 days before the score. */
const ported = (i: number, nowMs: number): LookupFields => ({
  ...quiet,
  porting: { ported: true, atMs: nowMs - (1 + (i % 6)) * DAY_MS },
});

/**
 * Account takeover through the phone number: a SIM swapped (or a number ported away) hours or days
 * before a login or a profile change, the fraud the live lookup's points in 2026.12.4 are for;
 * beside it the traffic such a customer base makes, where the network reports nothing recent, a
 * port long ago, or a new SIM before a payment (not a takeover moment), and a few owners who
 * replaced their SIM and then logged in (the friction the candidate costs). The takeovers are
 * under 1 % of the set, as they would be of a bank's logins.
 */
export const PHONE_TAKEOVER: ScenarioSet = {
  name: 'phone-takeover',
  description: 'SIM-swapped and recently ported numbers at takeover moments, among legitimate traffic',
  cases: [
    {
      name: 'SIM swapped, then a login',
      count: 36,
      moment: 'authentication',
      network: swapped,
      outcome: 'confirmed_fraud',
    },
    {
      name: 'ported, then a profile change',
      count: 24,
      moment: 'profile_change',
      network: ported,
      outcome: 'confirmed_fraud',
    },
    {
      name: 'owner replaced the SIM, then a login',
      count: 12,
      moment: 'authentication',
      network: swapped,
      outcome: 'not_fraud',
    },
    {
      name: 'new SIM or port, then a payment',
      count: 120,
      moment: 'payment',
      network: (i, nowMs) => (i % 2 === 0 ? swapped(i) : ported(i, nowMs)),
      outcome: 'not_fraud',
    },
    {
      name: 'ported long ago, then a login',
      count: 200,
      moment: 'authentication',
      network: (_i, nowMs) => ({ ...quiet, porting: { ported: true, atMs: nowMs - 60 * DAY_MS } }),
      outcome: 'not_fraud',
    },
    {
      name: 'nothing recent, a login',
      count: 3500,
      moment: 'authentication',
      network: () => quiet,
      outcome: 'not_fraud',
    },
    {
      name: 'nothing recent, a profile change',
      count: 1500,
      moment: 'profile_change',
      network: () => quiet,
      outcome: 'not_fraud',
    },
    {
      name: 'nothing recent, a payment',
      count: 2500,
      moment: 'payment',
      network: () => quiet,
      outcome: 'not_fraud',
    },
  ],
};

export const SCENARIO_SETS: ReadonlyMap<string, ScenarioSet> = new Map([
  [PHONE_TAKEOVER.name, PHONE_TAKEOVER],
]);

/** What a scenario set becomes: the audit records (as the API serializes them) and the outcomes reported. */
export interface ScenarioTraffic {
  /** Each score's audit record, JSON as the API publishes it. */
  scores: string[];
  outcomes: OutcomeRecord[];
}

/** The `n`th number of a set: UK mobiles of one range, so only the network's answer tells them apart. */
const numberOf = (n: number) => `+4479111${String(n).padStart(5, '0')}`;

/**
 * The set scored under `version` for organisation `orgId`, one score a second from `startMs`,
 * each case's outcome reported a minute after its score.
 */
export function scenarioRecords(
  set: ScenarioSet,
  version: ScoreVersion,
  orgId: string,
  startMs: number,
): ScenarioTraffic {
  const sources = calibrationSources();
  const out: ScenarioTraffic = { scores: [], outcomes: [] };
  let n = 0;
  for (const c of set.cases) {
    for (let i = 0; i < c.count; i++, n++) {
      const nowMs = startMs + n * 1000;
      const subject = { phone_number: numberOf(n) };
      const { scoreId, json } = scoredRecord({ sources, version, orgId, subject, nowMs, c, i });
      out.scores.push(json);
      out.outcomes.push(reported(orgId, scoreId, subject, nowMs, c.outcome));
    }
  }
  return out;
}

/** One score of case `c` as an API node with a live lookup makes it, and its audit record. */
function scoredRecord(p: {
  sources: EvidenceSources;
  version: ScoreVersion;
  orgId: string;
  subject: { phone_number: string };
  nowMs: number;
  c: ScenarioCase;
  i: number;
}): { scoreId: string; json: string } {
  const { c, nowMs } = p;
  const live: LiveLookupData = { state: 'answered', fields: c.network(p.i, nowMs), moment: c.moment, nowMs };
  const sources = { ...p.sources, data: { ...p.sources.data, [phoneLiveLookup.key]: live } };
  const context = {
    sector: 'banking',
    geography: { operating_countries: ['GB'] },
    collection_point: { moment: c.moment },
  };
  const scored = score({
    evidence: gatherEvidence(p.subject, sources, { reports: 0 }),
    version: p.version,
    context,
  });
  const scoreId = newScoreId(nowMs);
  const response = shapeResponse({
    scoreId,
    tier: 'bureau',
    versionId: p.version.id,
    scored,
    explain: true,
    latencyMs: 1,
  });
  const meta: Omit<AuditRecord, 'response'> = {
    v: AUDIT_RECORD_VERSION,
    score_id: scoreId,
    org_id: p.orgId,
    tier: 'bureau',
    scored_at: new Date(nowMs).toISOString(),
    scored_at_ms: nowMs,
    node_id: 'scenario',
    latency_ms: 1,
    request: { subject: p.subject, context },
    evidence: {
      ...tierEvidence(scored, 'bureau'),
      reputation: { reports: 0, feed_reports: 0, outcome_reports: 0 },
    },
    raw_risk: scored.raw,
    fired_components: scored.fired,
    ...(scored.context_effect !== undefined && { context_effect: scored.context_effect }),
    phone_lookup: { provider: 'twilio', outcome: 'answered' },
  };
  return { scoreId, json: serializeAuditRecord(meta, JSON.stringify(response)) };
}

function reported(
  orgId: string,
  scoreId: string,
  subject: { phone_number: string },
  scoredMs: number,
  outcome: ScenarioCase['outcome'],
): OutcomeRecord {
  const ms = scoredMs + 60_000;
  return {
    v: 1,
    outcome_id: newOutcomeId(ms),
    org_id: orgId,
    received_at_ms: ms,
    occurred_at_ms: scoredMs,
    outcome,
    score_id: scoreId,
    subject,
    node_id: 'scenario',
    request: { score_id: scoreId, outcome },
  };
}
