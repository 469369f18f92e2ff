/**
 * Replays a retained score under any score version with the engine the API runs (engine.ts
 * `score`), from what its audit row keeps: the components the caller's tier saw, the reason codes
 * of every component that found risk (`fired_components`, all tiers), the ledger's report count,
 * and the request's risk posture, moment and context effect.
 *
 * The engine reads facts, not components, so the replay rebuilds the least facts whose findings are
 * the stored components (a valid number for CLI_VALID, a Tor exit for IP_TOR_EXIT, ...) and scores
 * them. A score depends only on those findings, the posture, the moment and the context's effect
 * (engine.ts), so the rebuilt subject scores exactly as the original under every version; the
 * signature of a row is therefore all a backtest needs, and rows with equal signatures are replayed
 * once. `reproduces` checks a row against its own version: a row whose replay under the version
 * that made it does not give back its stored raw risk, score and band is counted, never trusted.
 */
import type { CapabilityDefinitions } from '../capabilities/index.ts';
import { CAPABILITY_DEFINITIONS } from '../capabilities/index.ts';
import type { ScoringContext } from '../vocabulary/scoring-input.ts';
import type { Action, Band, ContextEffect, Verdict } from '../vocabulary/score-terms.ts';
import type { IpFacts } from '../resolution/ip.ts';
import type { PhoneFacts } from '../resolution/phone.ts';
import { score, type RiskPosture, type ScoreVersion } from './engine.ts';
import type { Evidence, Reputation } from './evidence.ts';
import type { ComponentKey } from './reason-codes.ts';

/** A stored component as the audit row's evidence has it. */
export interface StoredComponent {
  component: string;
  verdict: Verdict;
  detail?: string;
}

/** Everything of a retained score that its band under any version depends on. */
export interface ReplaySignature {
  /** The components the caller's tier saw (evidence_json `components`). */
  components: readonly StoredComponent[];
  /** Reason codes of every component that found risk, whatever the tier (`fired_components`). */
  fired: readonly string[];
  /** The ledger's report count as the caller saw it (evidence_json `reputation.reports`). */
  reports: number;
  /** The request carried a context (inline or saved). */
  context: boolean;
  posture?: RiskPosture;
  moment?: string;
  /** The context's effect before gates; undefined when the row cannot tell (see backtest docs). */
  effect?: ContextEffect;
}

export interface Replayed {
  raw: number;
  score: number;
  band: Band;
  action: Action;
}

/** The component that gives each reason code. */
const COMPONENT_OF = new Map<string, ComponentKey>(
  CAPABILITY_DEFINITIONS.flatMap((d: CapabilityDefinitions) =>
    Object.keys(d.codes).map((code): [string, ComponentKey] => [code, d.key as ComponentKey]),
  ),
);

/** The country the rebuilt subject resolves to when a context effect needs one. */
const SUBJECT_COUNTRY = 'ZZ';

/** The least facts whose capability findings are the signature's components. */
export function replayEvidence(sig: ReplaySignature): Evidence {
  const detail = new Map<string, string>();
  const unavailable = new Set<ComponentKey>();
  for (const c of sig.components) {
    if (c.verdict === 'unavailable') unavailable.add(c.component as ComponentKey);
    else if (c.detail) detail.set(c.component, c.detail);
  }
  // Components the tier hid: only those that found risk can weigh anything, and fired names them.
  for (const code of sig.fired) {
    const key = COMPONENT_OF.get(code);
    if (key && !detail.has(key) && !unavailable.has(key)) detail.set(key, code);
  }
  const has = (key: string) => detail.has(key) || unavailable.has(key as ComponentKey);
  const evidence: Evidence = {};

  if (has('caller_id_integrity') || has('ndc_range_risk')) {
    const cli = detail.get('caller_id_integrity');
    const ndc = detail.get('ndc_range_risk');
    const valid = cli !== undefined ? cli === 'CLI_VALID' : ndc !== 'NDC_RANGE_UNKNOWN';
    const phone: PhoneFacts = {
      e164: '+0',
      valid,
      possible: valid,
      trunkZero: cli === 'CLI_UNATTESTED',
      allocated: valid,
    };
    evidence.phone = phone;
    if (ndc === 'NDC_RANGE_ELEVATED') evidence.ndcListed = 'elevated';
    else if (valid) evidence.ndcListed = 'ordinary';
  }

  if (has('ip_network_type') || has('ip_tor_exit') || has('ip_vpn_proxy')) {
    const type = detail.get('ip_network_type');
    const ip: IpFacts = {
      address: '192.0.2.1',
      version: 4,
      bogon: type === 'IP_BOGON',
      range: type === 'IP_BOGON' ? 'reserved' : 'unicast',
      hosting: type === 'IP_HOSTING',
      vpn: detail.get('ip_vpn_proxy') === 'IP_VPN_PROXY',
      proxy: false,
      tor: detail.get('ip_tor_exit') === 'IP_TOR_EXIT',
      ...(type === 'IP_ACCESS_NETWORK' || type === 'IP_HOSTING' ? { as_type: 'isp' as const } : {}),
    };
    evidence.ip = ip;
  }

  if (has('reputation_ledger')) {
    const rep = detail.get('reputation_ledger');
    const reputation: Reputation =
      rep === undefined
        ? 'unavailable'
        : { reports: rep === 'REPUTATION_REPORTED' ? Math.max(1, sig.reports) : 0 };
    evidence.reputation = reputation;
  }

  if (sig.effect && sig.effect !== 'none') {
    // contextEffect reads the subject's countries: a valid number's or a routable address's.
    if (evidence.phone?.valid) evidence.phone.country_code = SUBJECT_COUNTRY;
    else if (evidence.ip && !evidence.ip.bogon) evidence.ip.country_code = SUBJECT_COUNTRY;
  }
  if (unavailable.size > 0) evidence.unavailable = unavailable;
  return evidence;
}

/** A context with the signature's posture and moment whose geography has the stored effect. */
export function replayContext(sig: ReplaySignature): ScoringContext | undefined {
  if (!sig.context) return undefined;
  const geography =
    sig.effect === 'band_elevated'
      ? { operating_countries: ['YY'] }
      : sig.effect === 'band_reduced'
        ? { diaspora_corridors: [SUBJECT_COUNTRY] }
        : {};
  return {
    geography,
    collection_point: sig.moment ? { moment: sig.moment as never } : {},
    ...(sig.posture ? { risk_posture: sig.posture } : {}),
  } as ScoringContext;
}

/** The score the API gives the signature's subject under `version`: engine.ts `score`, unchanged. */
export function replay(sig: ReplaySignature, version: ScoreVersion): Replayed {
  const scored = score({ evidence: replayEvidence(sig), version, context: replayContext(sig) });
  return { raw: scored.raw, score: scored.score, band: scored.band, action: scored.recommended_action };
}

/** Whether the replay under the row's own version gives back what the row stored. */
export function reproduces(
  sig: ReplaySignature,
  own: ScoreVersion,
  stored: { raw: number; score: number; band: string },
): boolean {
  const r = replay(sig, own);
  return Math.abs(r.raw - stored.raw) < 1e-9 && r.score === stored.score && r.band === stored.band;
}
