import type { Band, Verdict } from '../vocabulary/score-terms.ts';
import type { CandidateVersion } from '../capabilities/definition.ts';
import { CAPABILITY_DEFINITIONS } from '../capabilities/index.ts';
import type { ReasonCode } from './reason-codes.ts';

/**
 * What a score version freezes besides its calibration table: the raw-risk points of the reason
 * codes it scores and the band thresholds. Never edit a released version; add a new one.
 */
export interface VersionDefinition {
  id: string;
  /**
   * As released: `candidate` versions are built but not yet scored on (a challenger can be);
   * promotion and retirement at run time are admin actions (shared/scoring/version-state.ts)
   * layered over this, never edits here.
   */
  status: 'live' | 'retired' | 'candidate';
  /**
   * Raw-risk points of the codes this version names; a code it does not name scores 0 in it, so a
   * reason code added later never edits a released version (nor its hash, which covers the map as
   * written). REPUTATION_REPORTED is per report, capped at the ledger's REPUTATION_CAP
   * reports (capabilities/reputation-ledger).
   */
  points: Partial<Record<ReasonCode, number>>;
  /**
   * Lowest score of each band above minimal, before the risk-posture shift. Versions from
   * 2026.12.0 on leave it out and carry `bandRateCaps` instead: their floors are derived from the
   * calibration table and frozen in it (calibration/<id>.json, `band_floors`).
   */
  bandFloors?: BandFloors;
  /** Highest share of the reference population, balanced posture, at each band or above. */
  bandRateCaps?: BandFloors;
  /**
   * Least share of the reference population each band below `critical` must keep (balanced
   * posture, gates applied) when the floors are derived: a floor is raised past scores that would
   * leave the band below it thinner than this. Without it (2026.12.0, 2026.12.1) a band can be empty by
   * construction: their `low` floor equals `medium`'s.
   */
  bandMinShare?: number;
  /**
   * Evidence gates: a band is only reached when at least one component has one of the listed
   * verdicts; otherwise the band steps down until a gate holds. Absent before 2026.12.0.
   */
  gates?: Partial<Record<Band, readonly Verdict[]>>;
  /** How far recall_weighted lowers and precision_weighted raises every band floor. */
  postureShift: number;
}

export type BandFloors = { low: number; medium: number; high: number; critical: number };

/** The points of `code` under a version's map: 0 when the version does not name it. */
export function pointsOf(points: VersionDefinition['points'], code: ReasonCode): number {
  return points[code] ?? 0;
}

const POINTS_2026_11: VersionDefinition['points'] = {
  CLI_IMPOSSIBLE: 45,
  CLI_UNATTESTED: 15,
  CLI_VALID: 0,
  NDC_RANGE_ELEVATED: 25,
  NDC_RANGE_ORDINARY: 0,
  NDC_RANGE_UNKNOWN: 0,
  IP_BOGON: 40,
  IP_HOSTING: 20,
  IP_ACCESS_NETWORK: 0,
  IP_NETWORK_UNKNOWN: 5,
  IP_TOR_EXIT: 35,
  IP_VPN_PROXY: 20,
  IP_NOT_ANONYMISED: 0,
  REPUTATION_REPORTED: 20,
  REPUTATION_NO_REPORTS: 0,
  SOURCE_UNAVAILABLE: 0,
};

const FLOORS = { low: 20, medium: 40, high: 60, critical: 80 };

/**
 * 2026.12.0: what is missing (an unclassified network, a trunk-zero number, no ledger answer)
 * weighs nothing; the points rank what is known to be wrong by how directly it serves fraud:
 * hosting < VPN < a reported subject or an elevated range < Tor < a bogon < an impossible number.
 */
const POINTS_2026_12: VersionDefinition['points'] = {
  CLI_IMPOSSIBLE: 45,
  CLI_UNATTESTED: 0,
  CLI_VALID: 0,
  NDC_RANGE_ELEVATED: 30,
  NDC_RANGE_ORDINARY: 0,
  NDC_RANGE_UNKNOWN: 0,
  IP_BOGON: 40,
  IP_HOSTING: 10,
  IP_ACCESS_NETWORK: 0,
  IP_NETWORK_UNKNOWN: 0,
  IP_TOR_EXIT: 35,
  IP_VPN_PROXY: 15,
  IP_NOT_ANONYMISED: 0,
  REPUTATION_REPORTED: 30,
  REPUTATION_NO_REPORTS: 0,
  SOURCE_UNAVAILABLE: 0,
};

/**
 * 2026.12.3: 2026.12.2's points plus Tor-operator space (IP_TOR_OPERATOR_NETWORK, an address the
 * exit list does not name in a network the list shows to be run for Tor exits). It weighs 20:
 * below a listed exit (35), since the address may not carry an exit; above a VPN endpoint (15),
 * since exits join these networks by the hour and the address is never a subscriber's line. A
 * stale list's silence (IP_ANONYMISER_LIST_STALE) is missing evidence and weighs nothing.
 */
const POINTS_2026_12_3: VersionDefinition['points'] = {
  ...POINTS_2026_12,
  IP_TOR_OPERATOR_NETWORK: 20,
  IP_ANONYMISER_LIST_STALE: 0,
};

/** At most 1 % critical, 5 % high or above, 15 % medium or above, 30 % low or above. */
const RATE_CAPS_2026_12: BandFloors = { critical: 0.01, high: 0.05, medium: 0.15, low: 0.3 };

/**
 * Each band below `critical` keeps at least 0.2 % of the reference population: 40 of the 20 000
 * bootstrap subjects, enough that a measured rate is not one subject's noise. `critical` is bounded
 * by its cap alone; versions.test.ts fails when the default's published rates leave it empty.
 */
const MIN_SHARE_2026_12_2 = 0.002;

/** critical needs an adverse component; high and medium an elevated or adverse one. */
const GATES_2026_12: VersionDefinition['gates'] = {
  critical: ['adverse'],
  high: ['elevated', 'adverse'],
  medium: ['elevated', 'adverse'],
};

/** The versions as written here, oldest first; capabilities add candidates and points (below). */
const WRITTEN_VERSIONS: readonly VersionDefinition[] = [
  {
    // Retired: weighed an unclassified network as heavily as hosting, which over-ranked new ASNs.
    id: '2026.02.0',
    status: 'retired',
    points: { ...POINTS_2026_11, CLI_IMPOSSIBLE: 40, NDC_RANGE_ELEVATED: 20, IP_NETWORK_UNKNOWN: 20 },
    bandFloors: FLOORS,
    postureShift: 5,
  },
  {
    id: '2026.08.0',
    status: 'live',
    points: {
      ...POINTS_2026_11,
      CLI_IMPOSSIBLE: 40,
      NDC_RANGE_ELEVATED: 20,
      IP_HOSTING: 25,
      IP_NETWORK_UNKNOWN: 10,
    },
    bandFloors: FLOORS,
    postureShift: 5,
  },
  { id: '2026.11.0', status: 'live', points: POINTS_2026_11, bandFloors: FLOORS, postureShift: 5 },
  {
    // Bands are a promise about friction: floors from the population, gates on evidence, and no
    // points for missing evidence (it lowers coverage instead).
    id: '2026.12.0',
    status: 'live',
    points: POINTS_2026_12,
    bandRateCaps: RATE_CAPS_2026_12,
    gates: GATES_2026_12,
    postureShift: 5,
  },
  {
    // Same points, floors and gates as 2026.12.0; calibrated on the scored population
    // (`npm run calibrate -- --from-history`). The first challenger.
    id: '2026.12.1',
    status: 'candidate',
    points: POINTS_2026_12,
    bandRateCaps: RATE_CAPS_2026_12,
    gates: GATES_2026_12,
    postureShift: 5,
  },
  {
    // Every band earns its place: 2026.12.0's points, caps and gates, floors derived with a least
    // share per band, so `low` holds the mildest evidence (a hosting network alone) instead of
    // nobody. The floors sit in the top few percentiles (most subjects have no evidence and score
    // 0), where a posture shift of 5 would cross several bands: 1 moves each kind of evidence
    // about one band (precision_weighted keeps a Tor exit or a bogon at `high`, not `low`).
    id: '2026.12.2',
    status: 'live',
    points: POINTS_2026_12,
    bandRateCaps: RATE_CAPS_2026_12,
    bandMinShare: MIN_SHARE_2026_12_2,
    gates: GATES_2026_12,
    postureShift: 1,
  },
  {
    // Networks run for Tor exits count: 2026.12.2 with IP_TOR_OPERATOR_NETWORK scored, so an exit
    // that joined its operator's network after the list was taken is at least `medium`.
    id: '2026.12.3',
    status: 'live',
    points: POINTS_2026_12_3,
    bandRateCaps: RATE_CAPS_2026_12,
    bandMinShare: MIN_SHARE_2026_12_2,
    gates: GATES_2026_12,
    postureShift: 1,
  },
];

/** What versionsWith reads of a capability: its points by version and the candidates it adds. */
interface VersionContribution {
  key: string;
  points?: Readonly<Record<string, Readonly<Partial<Record<string, number>>>>>;
  versions?: readonly CandidateVersion[];
}

/**
 * The written versions, then each candidate a capability declares (its `from` version copied under
 * the new id, as a candidate), each with every capability's points for its id added. A candidate
 * whose id exists or whose `from` does not, or points for a version nobody declares, is an error
 * at load: a typo must not silently score nothing.
 */
export function versionsWith(
  written: readonly VersionDefinition[],
  contributions: readonly VersionContribution[],
): VersionDefinition[] {
  const out = [...written];
  for (const c of contributions) {
    for (const v of c.versions ?? []) {
      const from = out.find((d) => d.id === v.from);
      if (!from) throw new Error(`${c.key}: candidate ${v.id} is built from ${v.from}, which does not exist`);
      if (out.some((d) => d.id === v.id)) throw new Error(`${c.key}: score version ${v.id} exists already`);
      out.push({ ...from, id: v.id, status: 'candidate', points: { ...from.points } });
    }
  }
  const ids = new Set(out.map((d) => d.id));
  for (const c of contributions) {
    for (const id of Object.keys(c.points ?? {})) {
      if (!ids.has(id)) throw new Error(`${c.key}: points for score version ${id}, which does not exist`);
    }
  }
  return out.map((d) => {
    const added = contributions.map((c) => c.points?.[d.id]).filter((p) => p !== undefined);
    return added.length === 0 ? d : { ...d, points: Object.assign({ ...d.points }, ...added) };
  });
}

/** Oldest first; the newest live version is the default. */
export const VERSION_DEFINITIONS: readonly VersionDefinition[] = versionsWith(
  WRITTEN_VERSIONS,
  CAPABILITY_DEFINITIONS,
);
