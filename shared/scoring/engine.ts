import { createHash } from 'node:crypto';
import type { Context } from '../contract/request.ts';
import type {
  Action,
  Band,
  ComponentResult,
  Coverage,
  SubjectResolutionT,
  Verdict,
} from '../contract/response.ts';
import type { IpFacts } from '../resolution/ip.ts';
import type { PhoneFacts } from '../resolution/phone.ts';
import { REASON_CODES, type ReasonCode } from './reason-codes.ts';
import type { ScoreVersion } from './versions.ts';

/** Evidence gathered for one subject before scoring; the engine itself does no I/O. */
export interface Evidence {
  phone?: PhoneFacts;
  ip?: IpFacts;
  /**
   * Reports in the reputation ledger; `unavailable` when the live lookup could not answer;
   * absent when the ledger was not consulted (the caller's tier does not include it).
   */
  reputation?: { reports: number } | 'unavailable';
}

export interface Scored {
  raw: number;
  score: number;
  band: Band;
  recommended_action: Action;
  coverage: Coverage;
  score_basis: string;
  components: ComponentResult[];
  primary_risk_factor?: { code: string; narrative: string };
  benign_exclusions: string[];
  context_applied?: {
    context_id?: string;
    effect: 'band_elevated' | 'band_reduced' | 'none';
    reason: string;
  };
  subject: SubjectResolutionT;
  cluster_id?: string;
  degraded_sources: string[];
}

export const DISCLOSURE =
  'This score is a ranking of the subject against a reference population, not a probability of fraud. ' +
  'Use it with your own policy; a low score with thin coverage means the subject is unwatched, not clean.';

interface Raw {
  component: string;
  verdict: Verdict;
  points: number;
  detail: ReasonCode;
}

function phoneComponents(p: PhoneFacts): Raw[] {
  const cli: Raw = p.valid
    ? { component: 'caller_id_integrity', verdict: 'clean', points: 0, detail: 'CLI_VALID' }
    : p.trunkZero
      ? { component: 'caller_id_integrity', verdict: 'no_match', points: 15, detail: 'CLI_UNATTESTED' }
      : { component: 'caller_id_integrity', verdict: 'adverse', points: 45, detail: 'CLI_IMPOSSIBLE' };
  const risky = new Set(['voip', 'premium_rate', 'shared_cost', 'personal_number', 'uan', 'pager']);
  const ndc: Raw = !p.valid
    ? { component: 'ndc_range_risk', verdict: 'no_match', points: 0, detail: 'NDC_RANGE_UNKNOWN' }
    : risky.has(p.line_type ?? '')
      ? { component: 'ndc_range_risk', verdict: 'elevated', points: 25, detail: 'NDC_RANGE_ELEVATED' }
      : { component: 'ndc_range_risk', verdict: 'clean', points: 0, detail: 'NDC_RANGE_ORDINARY' };
  return [cli, ndc];
}

function ipComponents(ip: IpFacts): Raw[] {
  const network: Raw = ip.bogon
    ? { component: 'ip_network_type', verdict: 'adverse', points: 40, detail: 'IP_BOGON' }
    : ip.hosting
      ? { component: 'ip_network_type', verdict: 'elevated', points: 20, detail: 'IP_HOSTING' }
      : ip.as_type
        ? { component: 'ip_network_type', verdict: 'clean', points: 0, detail: 'IP_ACCESS_NETWORK' }
        : { component: 'ip_network_type', verdict: 'neutral', points: 5, detail: 'IP_NETWORK_UNKNOWN' };
  const tor: Raw = ip.tor
    ? { component: 'ip_tor_exit', verdict: 'adverse', points: 35, detail: 'IP_TOR_EXIT' }
    : { component: 'ip_tor_exit', verdict: 'clean', points: 0, detail: 'IP_NOT_ANONYMISED' };
  const vpn: Raw =
    ip.vpn || ip.proxy
      ? { component: 'ip_vpn_proxy', verdict: 'elevated', points: 20, detail: 'IP_VPN_PROXY' }
      : { component: 'ip_vpn_proxy', verdict: 'clean', points: 0, detail: 'IP_NOT_ANONYMISED' };
  return [network, tor, vpn];
}

function reputationComponent(rep: NonNullable<Evidence['reputation']>): Raw {
  if (rep === 'unavailable') {
    return {
      component: 'reputation_ledger',
      verdict: 'unavailable',
      points: 0,
      detail: 'SOURCE_UNAVAILABLE',
    };
  }
  if (rep.reports === 0) {
    return {
      component: 'reputation_ledger',
      verdict: 'no_match',
      points: 0,
      detail: 'REPUTATION_NO_REPORTS',
    };
  }
  const verdict: Verdict = rep.reports >= 3 ? 'adverse' : 'elevated';
  return {
    component: 'reputation_ledger',
    verdict,
    points: Math.min(60, 20 * rep.reports),
    detail: 'REPUTATION_REPORTED',
  };
}

/** Percentile rank: the share of the reference population whose raw risk is strictly below `raw`. */
export function percentileRank(raw: number, quantiles: readonly number[]): number {
  let lo = 0;
  let hi = quantiles.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (quantiles[mid]! < raw) lo = mid + 1;
    else hi = mid;
  }
  return Math.max(0, Math.min(100, Math.round((lo * 100) / (quantiles.length - 1 || 1))));
}

const BAND_FLOORS: [Band, number][] = [
  ['critical', 80],
  ['high', 60],
  ['medium', 40],
  ['low', 20],
  ['minimal', 0],
];
const POSTURE_SHIFT = { recall_weighted: -5, balanced: 0, precision_weighted: 5 } as const;

export function bandFor(score: number, posture: keyof typeof POSTURE_SHIFT = 'balanced'): Band {
  const shift = POSTURE_SHIFT[posture];
  for (const [band, floor] of BAND_FLOORS) if (score >= floor + (floor === 0 ? 0 : shift)) return band;
  return 'minimal';
}

const STRICT_MOMENTS = new Set(['payment', 'profile_change', 'authentication']);

export function actionFor(band: Band, moment?: string): Action {
  const strict = moment !== undefined && STRICT_MOMENTS.has(moment);
  switch (band) {
    case 'minimal':
      return 'allow';
    case 'low':
      return strict ? 'watch' : 'allow';
    case 'medium':
      return strict ? 'step_up_auth' : 'investigate';
    case 'high':
      return strict ? 'challenge' : 'investigate';
    case 'critical':
      return 'block';
  }
}

function coverageOf(components: Raw[]): Coverage {
  const answered = components.filter((c) => c.verdict !== 'no_match' && c.verdict !== 'unavailable').length;
  const ratio = components.length === 0 ? 0 : answered / components.length;
  return ratio >= 0.75 ? 'strong' : ratio >= 0.4 ? 'partial' : 'thin';
}

/** Stable identifier of the infrastructure an IP sits on: its ASN, else its /24 (v4) or /48 (v6). */
function clusterOf(ip: IpFacts): string {
  const key = ip.asn
    ? `asn:${ip.asn}`
    : ip.version === 4
      ? `v4:${ip.address.split('.').slice(0, 3).join('.')}`
      : `v6:${ip.address.split(':').slice(0, 3).join(':')}`;
  return `cl_${createHash('sha256').update(key).digest('hex').slice(0, 16)}`;
}

export interface ScoreInput {
  evidence: Evidence;
  version: ScoreVersion;
  context?: Context;
  contextId?: string;
  /** Capabilities that answered on reduced evidence (open breaker, timeout, stale snapshot). */
  degraded?: readonly string[];
}

/** Scores one subject. Pure: the same input always gives the same output. */
export function score(input: ScoreInput): Scored {
  const { evidence, version, context } = input;
  const raws: Raw[] = [];
  if (evidence.phone) raws.push(...phoneComponents(evidence.phone));
  if (evidence.ip) raws.push(...ipComponents(evidence.ip));
  if (evidence.reputation !== undefined) raws.push(reputationComponent(evidence.reputation));

  const components: ComponentResult[] = raws.map((r) => ({
    component: r.component,
    verdict: r.verdict,
    contribution: Math.round(r.points * (version.weights[r.component] ?? 1)),
    detail: r.detail,
  }));
  const raw = components.reduce((sum, c) => sum + c.contribution, 0);
  const scoreValue = percentileRank(raw, version.quantiles);
  const band = bandFor(scoreValue, context?.risk_posture);

  const top = [...components].sort((a, b) => b.contribution - a.contribution)[0];
  const primary =
    top && top.contribution > 0 && top.detail
      ? { code: top.detail, narrative: REASON_CODES[top.detail as ReasonCode] }
      : undefined;

  const subject: SubjectResolutionT = {};
  if (evidence.phone) {
    const p = evidence.phone;
    subject.phone_number = {
      e164: p.e164,
      valid: p.valid,
      allocated: p.allocated,
      ...(p.country_code ? { country_code: p.country_code } : {}),
      ...(p.ndc ? { ndc: p.ndc } : {}),
      ...(p.operator ? { operator: p.operator } : {}),
      ...(p.line_type ? { line_type: p.line_type } : {}),
    };
  }
  if (evidence.ip) {
    const i = evidence.ip;
    subject.ip_address = {
      bogon: i.bogon,
      hosting: i.hosting,
      vpn: i.vpn,
      proxy: i.proxy,
      tor: i.tor,
      ...(i.asn ? { asn: i.asn } : {}),
      ...(i.as_name ? { as_name: i.as_name } : {}),
      ...(i.as_type ? { as_type: i.as_type } : {}),
      ...(i.country_code ? { country_code: i.country_code } : {}),
      ...(i.continent ? { continent: i.continent } : {}),
    };
  }

  const degraded = new Set(input.degraded ?? []);
  for (const c of components) if (c.verdict === 'unavailable') degraded.add(c.component);

  return {
    raw,
    score: scoreValue,
    band,
    recommended_action: actionFor(band, context?.collection_point.moment),
    coverage: coverageOf(raws),
    score_basis: `riskier than ${scoreValue} % of subjects in the ${version.referencePopulation}`,
    components,
    ...(primary ? { primary_risk_factor: primary } : {}),
    benign_exclusions: [],
    ...(context || input.contextId
      ? {
          context_applied: {
            ...(input.contextId ? { context_id: input.contextId } : {}),
            effect: 'none' as const,
            reason: 'no context rule changed the band',
          },
        }
      : {}),
    subject,
    ...(evidence.ip && !evidence.ip.bogon ? { cluster_id: clusterOf(evidence.ip) } : {}),
    degraded_sources: [...degraded],
  };
}
