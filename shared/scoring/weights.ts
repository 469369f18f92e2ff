import type { ReasonCode } from './reason-codes.ts';

/**
 * What a score version freezes besides its calibration table: the raw-risk points of every
 * reason code and the band thresholds. Never edit a released version; add a new one.
 */
export interface VersionDefinition {
  id: string;
  status: 'live' | 'retired';
  /** Raw-risk points per reason code; REPUTATION_REPORTED is per report, capped at REPUTATION_CAP reports. */
  points: Record<ReasonCode, number>;
  /** Lowest score of each band above minimal, before the risk-posture shift. */
  bandFloors: { low: number; medium: number; high: number; critical: number };
  /** How far recall_weighted lowers and precision_weighted raises every band floor. */
  postureShift: number;
}

export const REPUTATION_CAP = 3;

const POINTS_2026_11: Record<ReasonCode, number> = {
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

/** Oldest first; the newest live version is the default. */
export const VERSION_DEFINITIONS: readonly VersionDefinition[] = [
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
];
