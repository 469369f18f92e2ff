import { isoTime } from '../../shared/iso-time.ts';
import {
  AUDIT_RECORD_VERSION,
  serializeAuditRecord,
  type AuditRecord,
  type AuditRequest,
} from '../../shared/audit/record.ts';
import { requestDigest } from '../../shared/audit/request-digest.ts';
import type { ScoreRequest } from '../../shared/contract/request.ts';
import type { ReputationReportsT, ScoreResponse } from '../../shared/contract/response.ts';
import type { CapabilityStatus } from '../../shared/capabilities/condition.ts';
import type { Capability } from '../../shared/capabilities/model.ts';
import { newScoreId } from '../../shared/ids.ts';
import { score, type Scored as EngineScored } from '../../shared/scoring/engine.ts';
import { gatherEvidence, type EvidenceSources } from '../../shared/scoring/evidence.ts';
import type { Reputation } from '../../shared/capabilities/evidence.ts';
import type { ComponentKey } from '../../shared/scoring/reason-codes.ts';
import { shapeResponse } from '../../shared/contract/shape.ts';
import { tierEvidence } from '../../shared/scoring/tier-evidence.ts';
import { includedIn } from '../../shared/scoring/tiers.ts';
import { AS_RELEASED, type VersionState } from '../../shared/scoring/version-state.ts';
import type { Principal } from './auth.ts';
import type { LedgerLookup } from './capabilities/ledger-lookup.ts';
import type { PhoneLookup } from './capabilities/phone-lookup.ts';
import type { LiveLookupData } from '../../shared/capabilities/phone-live-lookup/index.ts';
import type { SnapshotCache } from './capabilities/snapshot-cache.ts';
import type { OrgListsLookup } from '../../shared/capabilities/org-lists/types.ts';
import { orgLists, type OrgListsData } from '../../shared/capabilities/org-lists/index.ts';
import type { Evidence } from '../../shared/capabilities/evidence.ts';
import type { ScoredSubject } from './recent-scores.ts';
import type { CheckedScoreRequest } from './score-request.ts';
import { CAPABILITY_DEFINITIONS } from '../../shared/capabilities/index.ts';
import { ipNetworkType } from '../../shared/capabilities/ip-network-type/index.ts';
import { phoneLiveLookup } from '../../shared/capabilities/phone-live-lookup/index.ts';
import { reputationLedger } from '../../shared/capabilities/reputation-ledger/index.ts';

export interface ScorerDeps {
  nodeId: string;
  /**
   * Takes the serialized audit record of each score; resolves once the record is durable (see
   * AuditPublisher), which the 200 waits for.
   */
  publish: (scoreId: string, recordJson: string, orgId: string) => Promise<void>;
  /**
   * Takes what an outcome needs of each score (its subject and time), before the record is
   * published; fire and forget (see RecentScores). The warm-up scorer has none.
   */
  remember?: (orgId: string, scoreId: string, entry: ScoredSubject) => void;
  /** The node's capability snapshots; read once per request, so a swap lands between requests. */
  snapshots: SnapshotCache;
  /** The capability models, with this deployment's freshness limits. */
  capabilities: readonly Capability[];
  ledger: LedgerLookup;
  /** The live phone lookup, when the operator configured a provider (phone-lookup.ts). */
  phoneLookup?: PhoneLookup;
  /** The default and challenger versions in force (services/api/version-follower.ts). */
  versions?: () => VersionState;
  /** The organisations' allow/deny lists held by the node (services/api/org-lists.ts). */
  lists?: OrgListsLookup;
}

/** A score's response body (serialized once, reused in the audit record) and its record's durability. */
export interface Scored {
  body: string;
  /** Resolves once the audit record is durable; the 200 must not leave before. */
  durable: Promise<void>;
}

/**
 * Scores a validated request from in-memory data only and hands the audit record to the publisher.
 */
export class Scorer {
  private readonly deps: ScorerDeps;

  constructor(deps: ScorerDeps) {
    this.deps = deps;
  }

  /** The score versions in force on this node. */
  versionState(): VersionState {
    return this.deps.versions?.() ?? AS_RELEASED;
  }

  /**
   * Starts the live ledger lookup for a caller whose tier includes it (else undefined). Meant to
   * run while the controls script is in flight; it never rejects.
   */
  reputation(
    checked: CheckedScoreRequest,
    principal: Principal,
  ): Promise<Reputation | undefined> | undefined {
    const budget = checked.request.options?.max_latency_ms ?? Number.POSITIVE_INFINITY;
    const ledger = includedIn(principal.org.tier, principal.org.entitlements).has(reputationLedger.key)
      ? this.deps.ledger.lookup(checked.request.subject, budget, principal.org.org_id)
      : undefined;
    const live = this.liveLookup(checked, principal, budget);
    if (live === undefined) return ledger;
    // The route awaits one promise for the live lookups before scoring: the phone lookup's answer
    // waits for score() beside the request it belongs to.
    return Promise.all([ledger, live]).then(([reputation, data]) => {
      this.live.set(checked, data);
      return reputation;
    });
  }

  /** Phone lookups answered for requests about to be scored, by request (phone_live_lookup). */
  private readonly live = new WeakMap<CheckedScoreRequest, LiveLookup>();

  /**
   * Starts the live phone lookup when the organisation opted in (a monthly cap), its tier sees
   * the component and the request has a number; else undefined, and nothing is asked of Redis.
   */
  private liveLookup(
    checked: CheckedScoreRequest,
    principal: Principal,
    budget: number,
  ): Promise<LiveLookup> | undefined {
    const { phoneLookup } = this.deps;
    const { org } = principal;
    const phone = checked.request.subject.phone_number;
    if (!phoneLookup || !phone || !org.phone_lookup_cap) return undefined;
    if (!includedIn(org.tier, org.entitlements).has(phoneLiveLookup.key)) return undefined;
    const moment = checked.context?.collection_point?.moment;
    return phoneLookup.lookup(phone, org.org_id, org.phone_lookup_cap, budget).then((out) => ({
      data:
        out.state === 'answered'
          ? { state: 'answered', fields: out.fields, nowMs: Date.now(), ...(moment ? { moment } : {}) }
          : { state: 'unavailable' },
      record: { provider: phoneLookup.provider, outcome: out.outcome },
    }));
  }

  /**
   * The sources evidence is gathered from, and the capabilities that answer on reduced evidence
   * for this subject: stale, or missing where the component can still answer without them.
   */
  private sources(
    subject: CheckedScoreRequest['request']['subject'],
    consultsLedger: boolean,
    included: ReadonlySet<string>,
  ) {
    const { snapshots } = this.deps;
    const snaps = snapshots.current;
    const now = Date.now();
    // Consortium data the caller's tier does not include is not consulted at all (the ledger's rule).
    const hidden = (name: string) => CONSORTIUM.has(name) && !included.has(name);
    const consulted = this.deps.capabilities
      .filter((cap) => !hidden(cap.name) && cap.consulted(subject, consultsLedger))
      .map((cap) => ({
        name: cap.name,
        stale: snapshots.dataStale(cap, now, snaps),
        status: snapshots.status(cap, now, snaps),
        marksEvidenceUnavailable: cap.marksEvidenceUnavailable,
      }));
    const { unavailable, degraded, stale, networksStale } = evidenceGaps(consulted);
    const d = snaps.data;
    const sources: EvidenceSources = {
      carriers: d.caller_id_integrity,
      networks: d[ipNetworkType.key]?.networks,
      networksStale,
      ndcRisk: d.ndc_range_risk,
      unavailable,
      stale,
      data: Object.fromEntries(Object.entries(d).filter(([name]) => !hidden(name))),
      ...(snaps.corrections ? { corrections: snaps.corrections } : {}),
    };
    return { sources, degraded };
  }

  /**
   * The organisation's own list entry for the subject, from the lists this node holds in memory
   * (never Redis on the request path), or undefined when none names the subject. Only its own:
   * a node that could not load them answers degraded, with the lists it held before if any.
   */
  private listed(orgId: string, evidence: Evidence): OrgListsData | undefined {
    const held = this.deps.lists?.forOrg(orgId);
    if (!held || (!held.lists && !held.degraded)) return undefined;
    const { phone, ip } = evidence;
    // One object of one shape (no spreads): this runs on every score of an organisation with lists.
    const subject = {
      e164: phone?.e164,
      ip: ip?.address,
      asn: ip?.asn ? Number(ip.asn.slice(2)) : undefined,
    };
    const match = held.lists?.match(subject, Date.now());
    // No entry and nothing degraded: the score is exactly an organisation's without lists, and
    // costs nothing more than the lookup (most of a caller's traffic is not on its lists).
    if (!match && !held.degraded) return undefined;
    return { degraded: held.degraded, ...(match ? { match } : {}) };
  }

  score(
    checked: CheckedScoreRequest,
    principal: Principal,
    startedAt: number,
    reputation?: Reputation,
  ): Scored {
    const { request: req, context, shadowVersion, idempotencyKey } = checked;
    const { tier, entitlements } = principal.org;
    const { sources, degraded } = this.sources(
      req.subject,
      reputation !== undefined,
      includedIn(tier, entitlements),
    );
    const live = this.live.get(checked);
    if (live) sources.data = { ...sources.data, [phoneLiveLookup.key]: live.data };
    const evidence = gatherEvidence(req.subject, sources, reputation);
    const listed = this.listed(principal.org.org_id, evidence);
    if (listed) evidence.data = { ...evidence.data, [orgLists.key]: listed };

    const { default: version, challenger } = this.versionState();
    const input = {
      evidence,
      context,
      contextId: req.context_id,
      degraded: listed?.degraded ? [...degraded, orgLists.key] : degraded,
    };
    const scored = score({ ...input, version });
    // The silent challenger: same evidence, its own version; only the audit row sees it.
    const challengerScored = challenger ? scoreChallenger({ ...input, version: challenger }) : undefined;
    const shadowScored = shadowVersion ? score({ ...input, version: shadowVersion }) : undefined;

    const nowMs = Date.now();
    const scoreId = newScoreId(nowMs);
    const response: ScoreResponse = shapeResponse({
      scoreId,
      tier,
      entitlements,
      versionId: version.id,
      scored,
      explain: req.options?.explain ?? true,
      clientReference: req.client_reference,
      shadow: shadowScored && {
        score_version: shadowVersion!.id,
        score: shadowScored.score,
        band: shadowScored.band,
      },
      latencyMs: Math.max(0, Math.round(performance.now() - startedAt)),
    });

    const body = JSON.stringify(response);
    const record = serializeAuditRecord(
      auditMeta({
        scoreId,
        nowMs,
        nodeId: this.deps.nodeId,
        org: principal.org,
        latencyMs: response.latency_ms ?? 0,
        request: req,
        scored,
        reputation,
        challenger: challenger && challengerScored && { id: challenger.id, scored: challengerScored },
        digest: requestDigest(principal.org.org_id, idempotencyKey),
        phoneLookup: live?.record,
      }),
      body,
    );
    // First, so its commands go ahead of the explain copy's on the cache connection.
    this.deps.remember?.(principal.org.org_id, scoreId, { scored_at_ms: nowMs, subject: req.subject });
    return { body, durable: this.deps.publish(scoreId, record, principal.org.org_id) };
  }
}

/**
 * The silent challenger's scoring: a function of its own only so that a CPU profile tells its cost
 * from the default version's (loadtest/profile-stages.ts), the engine being the same code.
 */
function scoreChallenger(input: Parameters<typeof score>[0]): ReturnType<typeof score> {
  return score(input);
}

/** How many ledger reports counted, for explain; only where the tier consulted the ledger and it answered. */
export function reputationReports(reputation: Reputation | undefined): { reputation?: ReputationReportsT } {
  if (reputation === undefined || reputation === 'unavailable') return {};
  const fromOutcomes = reputation.outcomeReports ?? 0;
  return {
    reputation: {
      reports: reputation.reports,
      feed_reports: reputation.reports - fromOutcomes,
      outcome_reports: fromOutcomes,
      ...(reputation.ownReport !== undefined ? { own_report: reputation.ownReport } : {}),
    },
  };
}

/** One consulted capability as this node holds it: the input of `evidenceGaps`. */
export interface ConsultedCapability {
  name: ComponentKey;
  /** Its data is older than its maximum data age. */
  stale: boolean;
  status: CapabilityStatus;
  marksEvidenceUnavailable: boolean;
}

/**
 * What the evidence lacks, from the capabilities consulted for a subject: the components marked
 * unavailable (only those whose absence is itself no evidence), the degraded ones the response
 * names, the stale ones, and whether the network tables are stale (absence from them is then no
 * evidence either).
 */
export function evidenceGaps(consulted: readonly ConsultedCapability[]) {
  const unavailable = new Set<ComponentKey>();
  const degraded: ComponentKey[] = [];
  const stale = new Set<ComponentKey>();
  let networksStale = false;
  for (const cap of consulted) {
    if (cap.stale) stale.add(cap.name);
    if (cap.name === ipNetworkType.key) networksStale = cap.stale;
    // A missing ledger version shows in the lookup's own answer (unavailable).
    if (cap.status === 'unavailable') {
      if (cap.marksEvidenceUnavailable) unavailable.add(cap.name);
    } else if (cap.status === 'degraded') degraded.push(cap.name);
  }
  return { unavailable, degraded, stale, networksStale };
}

/** What the audit record says besides the response: the parts `auditMeta` is made of. */
export interface AuditParts {
  scoreId: string;
  nowMs: number;
  nodeId: string;
  org: Pick<Principal['org'], 'org_id' | 'tier' | 'entitlements'>;
  latencyMs: number;
  request: ScoreRequest;
  scored: EngineScored;
  reputation: Reputation | undefined;
  /** The silent challenger's version and score, when one is set. */
  challenger: { id: string; scored: EngineScored } | undefined;
  /** The request's identity across retries (request-digest.ts), when it had an Idempotency-Key. */
  digest: string | undefined;
  /** What the live phone lookup did for the request, when one was tried. */
  phoneLookup?: AuditRecord['phone_lookup'];
}

/** The audit record without its response, which serializeAuditRecord adds as the bytes sent. */
export function auditMeta(p: AuditParts): Omit<AuditRecord, 'response'> {
  const { scored, challenger } = p;
  return {
    v: AUDIT_RECORD_VERSION,
    score_id: p.scoreId,
    org_id: p.org.org_id,
    tier: p.org.tier,
    scored_at: isoTime(p.nowMs),
    scored_at_ms: p.nowMs,
    node_id: p.nodeId,
    latency_ms: p.latencyMs,
    request: requestAsSent(p.request),
    evidence: { ...tierEvidence(scored, p.org.tier, p.org.entitlements), ...reputationReports(p.reputation) },
    raw_risk: scored.raw,
    fired_components: scored.fired,
    // Before gates, for every tier: the response's context_applied does not say it (backtests).
    ...(scored.context_effect !== undefined && { context_effect: scored.context_effect }),
    ...(challenger && {
      challenger: {
        score_version: challenger.id,
        score: challenger.scored.score,
        band: challenger.scored.band,
        raw_risk: challenger.scored.raw,
      },
    }),
    ...(p.digest !== undefined && { request_digest: p.digest }),
    ...(p.phoneLookup && { phone_lookup: p.phoneLookup }),
  };
}

/** The request as the caller sent it (the key travels in a header and is never part of this). */
export function requestAsSent(req: ScoreRequest): AuditRequest {
  const out: AuditRequest = { subject: req.subject };
  if (req.context_id !== undefined) out.context_id = req.context_id;
  if (req.context !== undefined) out.context = req.context;
  if (req.options !== undefined) out.options = req.options;
  if (req.client_reference !== undefined) out.client_reference = req.client_reference;
  return out;
}

/** A phone lookup's answer for the finding, and what it did for the audit record. */
interface LiveLookup {
  data: LiveLookupData;
  record: NonNullable<AuditRecord['phone_lookup']>;
}

/** Capabilities whose data is consortium data (definition.ts `consortium`). */
const CONSORTIUM: ReadonlySet<string> = new Set(
  CAPABILITY_DEFINITIONS.filter((d) => d.consortium).map((d) => d.key),
);
