import { storedFinding, type CapabilityFinding } from '../capabilities/definition.ts';
import { COMPONENT_ORDER } from '../capabilities/component-order.ts';
import { reputationLedger } from '../capabilities/reputation-ledger/index.ts';
import { COMPONENTS_OF_FLAG } from '../capabilities/flags.ts';
import {
  applyListMatch,
  listContextApplied,
  listEffectOf,
  orgLists,
  type OrgListsData,
} from '../capabilities/org-lists/index.ts';
import type { RiskPosture, ScoringContext } from '../vocabulary/scoring-input.ts';
import type { Action, Band, ContextEffect, Coverage, Verdict } from '../vocabulary/score-terms.ts';
import type { PhoneFacts } from '../resolution/phone.ts';
import type { Evidence } from '../capabilities/evidence.ts';
import type { BenignExclusion } from '../vocabulary/benign-exclusions.ts';
import { percentileRank, type Calibration } from './percentile.ts';
import { REASON_CODES, type ComponentKey, type ReasonCode } from './reason-codes.ts';
import type { ComponentResult, ResolvedSubject } from './result-types.ts';
import { pointsOf, type BandFloors, type VersionDefinition } from './weights.ts';
import { sha256Hex } from '../sha256.ts';

/** A version as scored with: its definition, calibration table, resolved floors and content hash. */
export interface ScoreVersion extends VersionDefinition {
  calibration: Calibration;
  bandFloors: BandFloors;
  /** sha256 of everything that decides a score (shared/scoring/versions.ts). */
  hash: string;
}

export interface ContextApplied {
  context_id?: string;
  effect: ContextEffect;
  reason: string;
}

export interface Scored {
  raw: number;
  /** Reason codes of the components that found risk (elevated or adverse): what the gates read. */
  fired: string[];
  score: number;
  band: Band;
  recommended_action: Action;
  coverage: Coverage;
  score_basis: string;
  components: ComponentResult[];
  primary_risk_factor?: { code: string; narrative: string };
  benign_exclusions: BenignExclusion[];
  context_applied?: ContextApplied;
  /**
   * The context's effect before gates (contextEffect), which `context_applied.effect` reports only
   * when it moved the band; absent without a context. The audit record keeps it for every tier.
   */
  context_effect?: ContextEffect;
  subject: ResolvedSubject;
  /** Services the data name for the subject's network, by the component that read them (explain only). */
  services: NamedService[];
  /** Flags an operator correction set, by the component that reads them (explain only). */
  corrections: CorrectedComponent[];
  cluster_id?: string;
  degraded_sources: string[];
}

export interface CorrectedComponent {
  component: ComponentKey;
  flag: 'hosting' | 'vpn' | 'proxy' | 'tor';
  /** The flag's value after the correction. */
  value: boolean;
}

/** Which flags operators corrected (shared/capabilities/corrections.ts); never the range or why. */
function correctedComponents(evidence: Evidence): CorrectedComponent[] {
  const ip = evidence.ip;
  return (ip?.corrected ?? []).flatMap((flag) =>
    (COMPONENTS_OF_FLAG.get(flag) ?? []).map((component) => ({ component, flag, value: ip![flag] })),
  );
}

export interface NamedService {
  component: ComponentKey;
  name: string;
}

/** Which VPN provider or cloud the data name for the address: the "which" behind a flag. */
function namedServices(evidence: Evidence): NamedService[] {
  const services = evidence.ip?.services ?? {};
  return COMPONENT_ORDER.flatMap((c) => {
    const name = services[c.key];
    return name !== undefined ? [{ component: c.key, name }] : [];
  });
}

export const DISCLOSURE =
  'This score is a ranking of the subject against a reference population, not a probability of fraud. ' +
  'Use it with your own policy; a low score with thin coverage means the subject is unwatched, not clean.';

/** A capability's finding (shared/capabilities/definition.ts), named by its component. */
interface Finding extends CapabilityFinding<ReasonCode> {
  component: ComponentKey;
}

/** Components with their integer contributions under `points`, and their sum: the raw risk. */
export function evaluate(
  evidence: Evidence,
  points: VersionDefinition['points'],
): { components: ComponentResult[]; raw: number } {
  const findings: Finding[] = [];
  const missing = evidence.unavailable;
  for (const cap of COMPONENT_ORDER) {
    // Each definition decoded its own data (snapshot.decode): it gets back what it made.
    const found = cap.finding(evidence, evidence.data?.[cap.key] as never);
    if (!found) continue;
    findings.push(
      missing?.has(cap.key)
        ? { component: cap.key, verdict: 'unavailable', detail: 'SOURCE_UNAVAILABLE' }
        : { component: cap.key, ...found },
    );
  }
  const components = findings.map((f) => ({
    component: f.component,
    verdict: f.verdict,
    contribution: pointsOf(points, f.detail) * (f.times ?? 1),
    detail: f.detail,
  }));
  return { components, raw: components.reduce((sum, c) => sum + c.contribution, 0) };
}

const BANDS_DESC = ['critical', 'high', 'medium', 'low'] as const;
const BAND_ORDER: readonly Band[] = ['minimal', 'low', 'medium', 'high', 'critical'];
const POSTURE_SIGN: Readonly<Record<RiskPosture, -1 | 0 | 1>> = {
  recall_weighted: -1,
  balanced: 0,
  precision_weighted: 1,
};

/** Band of a score under the version's floors (before 2026.12.0: 20/40/60/80), shifted by posture. */
export function bandFor(
  score: number,
  def: { bandFloors: BandFloors; postureShift: number },
  posture: RiskPosture = 'balanced',
): Band {
  const shift = POSTURE_SIGN[posture] * def.postureShift;
  for (const band of BANDS_DESC) if (score >= def.bandFloors[band] + shift) return band;
  return 'minimal';
}

/**
 * The highest band the reputation ledger may lift a subject to on its own, by how many reporting
 * organisations it counts (for a subject that only the feed lists, by the feed's reports, as
 * before organisations reported): one makes it at most `medium`, two `high`, three `critical`.
 * One tenant's report alone can never make a subject `high` for everyone.
 */
export function ledgerCeiling(organisations: number): Band {
  return organisations >= 3 ? 'critical' : organisations === 2 ? 'high' : 'medium';
}

/**
 * The gates every version applies to a subject the ledger reports, also versions released before
 * evidence gates: the trust rules bind what one organisation's report does to everyone's scores.
 */
export const LEDGER_TRUST_GATES: NonNullable<VersionDefinition['gates']> = {
  critical: ['adverse'],
  high: ['elevated', 'adverse'],
  medium: ['elevated', 'adverse'],
};

/**
 * The highest band at or below `band` whose evidence gate holds: a gated band needs at least one
 * component with one of its verdicts, and the ledger's component counts only up to its ceiling
 * (`ledgerCount`, see ledgerCeiling). Without gates (versions before 2026.12.0, on a subject
 * the ledger does not report) the band stands.
 */
export function gateBand(
  band: Band,
  components: readonly { verdict: Verdict; component?: string }[],
  gates: VersionDefinition['gates'],
  ledgerCount?: number,
): Band {
  if (!gates) return band;
  const ledgerTop =
    ledgerCount === undefined ? BAND_ORDER.length : BAND_ORDER.indexOf(ledgerCeiling(ledgerCount));
  let i = BAND_ORDER.indexOf(band);
  while (i > 0) {
    const needs = gates[BAND_ORDER[i]!];
    const level = i;
    const holds = (c: { verdict: Verdict; component?: string }) =>
      needs!.includes(c.verdict) && (c.component !== reputationLedger.key || level <= ledgerTop);
    if (!needs || components.some(holds)) break;
    i--;
  }
  return BAND_ORDER[i]!;
}

/**
 * The ceiling on the band the ledger's points produce. The gates stop the ledger's own component
 * from meeting a band's gate, but its points still raise the score, and another component that is
 * only `elevated` would then meet the `high` gate: one organisation's report would make any
 * hosting or VPN address `high` for everyone. So, with `organisations` counted for the caller:
 * - one: the band is at most the higher of `without` (the band the other evidence gives) and `medium`;
 * - two: at most the higher of `without` and `high`, unless another component is `adverse`;
 * - three or more: no ceiling beyond the gates.
 * `without` includes the seed or consortium feed's own band when organisations report too (see
 * bandOf): the feed is evidence of its own, never an organisation.
 */
export function ledgerBandCeiling(
  band: Band,
  without: Band,
  organisations: number,
  components: readonly { verdict: Verdict; component?: string }[],
): Band {
  if (organisations >= 3) return band;
  const otherAdverse = components.some(
    (c) => c.component !== reputationLedger.key && c.verdict === 'adverse',
  );
  if (organisations === 2 && otherAdverse) return band;
  const top = Math.max(BAND_ORDER.indexOf(without), BAND_ORDER.indexOf(ledgerCeiling(organisations)));
  return BAND_ORDER[Math.min(BAND_ORDER.indexOf(band), top)]!;
}

/** Moments where a fraudster gains control or money right away, so the action is stricter. */
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

/**
 * Share of components that found a positive or negative fact (not neutral, no_match or
 * unavailable). The organisation's own lists are its policy, not evidence about the subject: they
 * are not counted, so holding lists does not change an organisation's coverage.
 */
export function coverageOf(all: readonly ComponentResult[]): Coverage {
  const informative = new Set<Verdict>(['clean', 'elevated', 'adverse']);
  const components = all.filter((c) => c.component !== orgLists.key);
  const answered = components.filter((c) => informative.has(c.verdict)).length;
  const ratio = components.length === 0 ? 0 : answered / components.length;
  return ratio >= 0.75 ? 'strong' : ratio >= 0.4 ? 'partial' : 'thin';
}

/**
 * Stable identifier of the infrastructure a subject sits on: the IP's ASN, else its /24 (v4) or
 * /48 (v6); for a phone-only subject, its numbering range (calling code and NDC).
 */
function clusterOf(evidence: Evidence): string | undefined {
  const ip = evidence.ip;
  let key: string | undefined;
  if (ip && !ip.bogon) {
    key = ip.asn
      ? `asn:${ip.asn}`
      : ip.version === 4
        ? `v4:${ip.address.split('.').slice(0, 3).join('.')}`
        : `v6:${ip.address.split(':').slice(0, 3).join(':')}`;
  } else if (evidence.phone?.valid && evidence.phone.calling_code && evidence.phone.ndc) {
    key = `range:${evidence.phone.calling_code}:${evidence.phone.ndc}`;
  }
  return key && clusterId(key);
}

/**
 * The digests of cluster keys already seen. The keys are few (an ASN, a /24 or /48, a numbering
 * range) and each request asks twice (the default version and the challenger), so a digest is
 * kept; the map is emptied when full so its memory stays bounded whatever callers send.
 */
const CLUSTER_IDS_MAX = 100_000;
const clusterIds = new Map<string, string>();

function clusterId(key: string): string {
  let id = clusterIds.get(key);
  if (id === undefined) {
    if (clusterIds.size >= CLUSTER_IDS_MAX) clusterIds.clear();
    id = `cl_${sha256Hex(key).slice(0, 16)}`;
    clusterIds.set(key, id);
  }
  return id;
}

/** Countries the subject resolves to: the number's region when valid, the IP's country when routable. */
function subjectCountries(evidence: Evidence): string[] {
  const out = new Set<string>();
  if (evidence.phone?.valid && evidence.phone.country_code) out.add(evidence.phone.country_code);
  if (evidence.ip && !evidence.ip.bogon && evidence.ip.country_code) out.add(evidence.ip.country_code);
  return [...out];
}

/**
 * The context's effect on the band, one step at most:
 * - band_elevated when a subject country is outside the operating countries and every corridor
 *   (only when the context names operating countries or expected corridors);
 * - otherwise band_reduced when a subject country is a diaspora corridor;
 * - otherwise none. Elevation wins so that a diaspora corridor cannot hide a foreign leg.
 */
export function contextEffect(
  evidence: Evidence,
  context: ScoringContext,
): { effect: ContextEffect; reason: string; countries: string[] } {
  const geo = context.geography;
  const operating = new Set(geo.operating_countries ?? []);
  const expected = new Set([...operating, ...(geo.expected_corridors ?? [])]);
  const diaspora = new Set(geo.diaspora_corridors ?? []);
  const countries = subjectCountries(evidence);
  const outside = countries.filter((c) => !expected.has(c) && !diaspora.has(c));
  if (expected.size > 0 && outside.length > 0) {
    return {
      effect: 'band_elevated',
      reason: `subject resolves to ${outside.join(', ')}, outside the operating countries and corridors`,
      countries,
    };
  }
  const inDiaspora = countries.filter((c) => diaspora.has(c));
  if (inDiaspora.length > 0) {
    return {
      effect: 'band_reduced',
      reason: `subject resolves to ${inDiaspora.join(', ')}, a diaspora corridor of this context`,
      countries,
    };
  }
  return { effect: 'none', reason: 'no geography rule of the context matched the subject', countries };
}

function shiftBand(band: Band, effect: ContextEffect): Band {
  const i = BAND_ORDER.indexOf(band) + (effect === 'band_elevated' ? 1 : effect === 'band_reduced' ? -1 : 0);
  return BAND_ORDER[Math.max(0, Math.min(BAND_ORDER.length - 1, i))]!;
}

/**
 * The capabilities that can vouch that an address is not anonymised: those whose codes include
 * the shared clean code (the Tor exit and the VPN/proxy lists).
 */
const ANONYMISER_LISTS: readonly ComponentKey[] = COMPONENT_ORDER.filter(
  (c) => 'IP_NOT_ANONYMISED' in c.codes,
).map((c) => c.key);

function benignExclusions(
  evidence: Evidence,
  context: ScoringContext | undefined,
  components: readonly ComponentResult[],
): BenignExclusion[] {
  const out: BenignExclusion[] = [];
  const geo = context?.geography;
  const operating = new Set(geo?.operating_countries ?? []);
  const expected = new Set([...operating, ...(geo?.expected_corridors ?? [])]);
  const diaspora = new Set(geo?.diaspora_corridors ?? []);
  const p = evidence.phone;
  if (p?.valid && p.country_code && operating.has(p.country_code)) {
    if (p.line_type === 'mobile') out.push('MOBILE_IN_OPERATING_COUNTRY');
    else if (p.line_type === 'fixed_line' || p.line_type === 'fixed_line_or_mobile') {
      out.push('FIXED_LINE_IN_OPERATING_COUNTRY');
    }
  }
  const ip = evidence.ip;
  // Only lists that answered `clean` vouch: one that is missing, past its maximum data age (its
  // silence is no reassurance) or that places the address in Tor-operator space does not.
  const vouched = ANONYMISER_LISTS.every((key) =>
    components.some((c) => c.component === key && c.verdict === 'clean'),
  );
  // A hosting or VPS address is where anonymising services run: the Tor and VPN lists not
  // naming it is no reassurance, so it earns neither exclusion.
  // Relays and carrier NAT are named, not held against the subject (no anonymiser points).
  const anonymised = ip !== undefined && (ip.tor || ip.vpn || ip.proxy);
  if (ip?.relay && !ip.tor) out.push('IP_PRIVACY_RELAY');
  if (ip && !ip.bogon && ip.as_type === 'mobile' && !anonymised) out.push('IP_CARRIER_NAT');
  if (ip && !ip.bogon && !ip.hosting && vouched) {
    out.push('IP_NOT_ANONYMISED');
    if (ip.country_code && expected.has(ip.country_code)) out.push('ACCESS_IP_IN_EXPECTED_GEOGRAPHY');
  }
  if (subjectCountries(evidence).some((c) => diaspora.has(c))) out.push('SUBJECT_IN_DIASPORA_CORRIDOR');
  return out;
}

function resolution(evidence: Evidence): ResolvedSubject {
  const subject: ResolvedSubject = {};
  if (evidence.phone) {
    // `operator` arrives with the carrier data; copied when the resolver provides it.
    const p = evidence.phone as PhoneFacts & { operator?: string };
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
  return subject;
}

export interface ScoreInput {
  evidence: Evidence;
  version: ScoreVersion;
  context?: ScoringContext;
  contextId?: string;
  /** Capabilities that answered on reduced evidence (open breaker, timeout, stale snapshot). */
  degraded?: readonly string[];
}

/** What a score's band depends on besides its components, as a retained score keeps it. */
export interface BandInput {
  posture?: RiskPosture;
  /** The context's effect before gates (contextEffect); undefined when the request had no context. */
  effect?: ContextEffect;
  /** The ledger's reports for the caller (feed and organisations), when it reports the subject at all. */
  ledgerReports?: number;
  /**
   * Of `ledgerReports`, the organisations whose votes count for the caller; the rest are the
   * seed or consortium feed's. Absent: every report counts as an organisation's, which gives the
   * band the engine gave before the two were told apart (rows stored without `outcome_reports`).
   */
  ledgerOrganisations?: number;
}

export interface Banded {
  score: number;
  band: Band;
  /** The band before the context's shift. */
  postureBand: Band;
  /** The band the context's effect alone would give, before gates. */
  shifted?: Band;
}

/** How the ledger's trust rules bind one band computation (see bandOf). */
interface LedgerTrust {
  /** What the ceiling counts: organisations, or for a subject only the feed lists, its reports. */
  count: number;
  /** What the ledger's component meets gates with (ledgerCeiling of it). */
  gateCount: number;
  /** The bands without the organisations' reports (the feed's own), which the ceiling keeps. */
  kept?: Banded;
}

const higherBand = (a: Band, b: Band | undefined): Band =>
  b === undefined || BAND_ORDER.indexOf(a) >= BAND_ORDER.indexOf(b) ? a : b;

/**
 * The score and band of a subject's components under `version`: the percentile, the posture's
 * floors, the evidence gates, the ledger's ceiling and the context's one-step shift. Everything a
 * band depends on is an argument, so a retained score replays through this very function
 * (replay.ts).
 *
 * The ledger's ceiling counts organisations, never reports: the seed or consortium feed is
 * evidence of its own and never stands in for an organisation. A subject only the feed lists gets
 * what it always got (the feed's reports counted as the ceiling's count). When organisations
 * report a subject the feed lists too, the feed's own band (the subject scored with the feed's
 * reports alone) is kept like other evidence, and the organisations may lift the band above it
 * only as far as their own count allows.
 *
 * Last, the organisation's own lists (their component's code, so a replay applies what the score
 * did): an allow entry caps the band at `low`, a deny entry lifts it to at least `high`, whatever
 * the gates and the context said. `postureBand` and `shifted` stay the bands before it.
 */
export function bandOf(
  components: readonly ComponentResult[],
  raw: number,
  version: ScoreVersion,
  input: BandInput,
): Banded {
  const banded = bandBeforeLists(components, raw, version, input);
  const band = applyListMatch(banded.band, listEffectOf(components));
  return band === banded.band ? banded : { ...banded, band };
}

/** bandOf without the organisation's lists. */
function bandBeforeLists(
  components: readonly ComponentResult[],
  raw: number,
  version: ScoreVersion,
  input: BandInput,
): Banded {
  const { ledgerReports } = input;
  if (ledgerReports === undefined) return bandWith(components, raw, version, input);
  const organisations = Math.min(ledgerReports, input.ledgerOrganisations ?? ledgerReports);
  const feed = ledgerReports - organisations;
  const alone = feed > 0 && organisations > 0 ? feedAlone(components, version, feed) : undefined;
  // Only one source reports it: the count is that source's, as it always was.
  if (!alone)
    return bandWith(components, raw, version, input, { count: ledgerReports, gateCount: ledgerReports });
  const kept = bandBeforeLists(alone.components, alone.raw, version, {
    ...input,
    ledgerReports: feed,
    ledgerOrganisations: 0,
  });
  return bandWith(components, raw, version, input, {
    count: organisations,
    // The ledger's component meets a gate as far as either source alone would let it.
    gateCount: Math.max(feed, organisations),
    kept,
  });
}

/**
 * The components with the ledger's finding as the feed's `reports` alone give it (the capability's
 * own declaration of a report count, as a replay uses it), or undefined when the ledger's
 * component is no report.
 */
function feedAlone(
  components: readonly ComponentResult[],
  version: ScoreVersion,
  reports: number,
): { components: ComponentResult[]; raw: number } | undefined {
  const ledger = components.find((c) => c.component === reputationLedger.key);
  if (ledger?.detail !== 'REPUTATION_REPORTED') return undefined;
  const found = storedFinding(reputationLedger.replay, 'REPUTATION_REPORTED', reports);
  const own: ComponentResult = {
    ...ledger,
    verdict: found.verdict,
    contribution: pointsOf(version.points, 'REPUTATION_REPORTED') * (found.times ?? 1),
  };
  const out = components.map((c) => (c === ledger ? own : c));
  return { components: out, raw: out.reduce((sum, c) => sum + c.contribution, 0) };
}

/** bandOf under one ledger trust: the percentile, posture, gates, ceiling and context shift. */
function bandWith(
  components: readonly ComponentResult[],
  raw: number,
  version: ScoreVersion,
  input: BandInput,
  trust?: LedgerTrust,
): Banded {
  const { posture, effect } = input;
  const scoreValue = percentileRank(raw, version.calibration);
  const gates = version.gates ?? (trust !== undefined ? LEDGER_TRUST_GATES : undefined);
  // What the other evidence alone would give: the band the ledger's points may not lift past
  // its ceiling (ledgerBandCeiling). The score itself keeps the ledger's points.
  const others = components.filter((c) => c.component !== reputationLedger.key);
  const scoreWithout =
    trust === undefined
      ? scoreValue
      : percentileRank(
          others.reduce((sum, c) => sum + c.contribution, 0),
          version.calibration,
        );
  const ceiled = (b: Band, without: Band, kept: Band | undefined) =>
    trust === undefined ? b : ledgerBandCeiling(b, higherBand(without, kept), trust.count, components);
  const postureWithout = gateBand(bandFor(scoreWithout, version, posture), others, version.gates);
  const postureBand = ceiled(
    gateBand(bandFor(scoreValue, version, posture), components, gates, trust?.gateCount),
    postureWithout,
    trust?.kept?.postureBand,
  );
  if (effect === undefined) return { score: scoreValue, band: postureBand, postureBand };
  const shifted = shiftBand(postureBand, effect);
  // The gates bind the context too: it cannot lift a subject without evidence above `low`.
  const band = ceiled(
    gateBand(shifted, components, gates, trust?.gateCount),
    gateBand(shiftBand(postureWithout, effect), others, version.gates),
    trust?.kept?.band,
  );
  return { score: scoreValue, band, postureBand, shifted };
}

/**
 * What `context_applied` says: the organisation's list entry that set the band when one did (it
 * has the last word on the band, so it is what the caller reads), else the geography's effect.
 */
function appliedContext(
  input: ScoreInput,
  components: readonly ComponentResult[],
  { band, postureBand, shifted }: Banded,
  geography: { effect: ContextEffect; reason: string } | undefined,
): ContextApplied | undefined {
  const contextId = input.contextId ? { context_id: input.contextId } : {};
  const listed = (input.evidence.data?.[orgLists.key] as OrgListsData | undefined)?.match;
  if (listed && listEffectOf(components)) return { ...contextId, ...listContextApplied(listed) };
  if (!geography) return undefined;
  const { effect, reason } = geography;
  // A shift that cannot move the band (already critical or minimal, or gated) changed nothing: say so.
  const applied: ContextEffect = band === postureBand ? 'none' : effect;
  const why =
    shifted === postureBand ? `the band is already ${band}` : `no evidence allows a band above ${band}`;
  return { ...contextId, effect: applied, reason: applied === effect ? reason : `${reason}; ${why}` };
}

/** Scores one subject. Pure: the same input always gives the same output. */
export function score(input: ScoreInput): Scored {
  const { evidence, version, context } = input;
  const { components, raw } = evaluate(evidence, version.points);
  const rep = evidence.reputation;
  const reported = rep !== undefined && rep !== 'unavailable' && rep.reports > 0 ? rep : undefined;
  const geography = context ? contextEffect(evidence, context) : undefined;
  const banded = bandOf(components, raw, version, {
    ...(context?.risk_posture ? { posture: context.risk_posture } : {}),
    ...(geography ? { effect: geography.effect } : {}),
    ...(reported ? { ledgerReports: reported.reports } : {}),
    // The ceiling counts organisations; the feed's reports are evidence of their own.
    ...(reported?.outcomeReports !== undefined ? { ledgerOrganisations: reported.outcomeReports } : {}),
  });
  const { score: scoreValue, band } = banded;
  const contextApplied = appliedContext(input, components, banded, geography);

  // Highest contribution wins; ties go to the earlier component (phone before IP before ledger).
  let top: ComponentResult | undefined;
  for (const c of components) if (c.contribution > 0 && (!top || c.contribution > top.contribution)) top = c;
  const primary = top?.detail
    ? { code: top.detail, narrative: REASON_CODES[top.detail as ReasonCode] }
    : undefined;

  const degraded = new Set(input.degraded ?? []);
  for (const c of components) if (c.verdict === 'unavailable') degraded.add(c.component);
  const cluster = clusterOf(evidence);

  return {
    raw,
    fired: components
      .filter((c) => c.verdict === 'elevated' || c.verdict === 'adverse')
      .map((c) => c.detail!),
    score: scoreValue,
    band,
    recommended_action: actionFor(band, context?.collection_point.moment),
    coverage: coverageOf(components),
    score_basis: `riskier than ${scoreValue} % of subjects in the reference population of ${version.id}`,
    components,
    ...(primary ? { primary_risk_factor: primary } : {}),
    benign_exclusions: benignExclusions(evidence, context, components),
    ...(contextApplied ? { context_applied: contextApplied } : {}),
    ...(geography ? { context_effect: geography.effect } : {}),
    subject: resolution(evidence),
    services: namedServices(evidence),
    corrections: correctedComponents(evidence),
    ...(cluster ? { cluster_id: cluster } : {}),
    degraded_sources: [...degraded],
  };
}
