/**
 * Score versions. A version freezes the component weights, the band thresholds and the
 * calibration table (raw-risk quantiles of its reference population), so a stored score can be
 * explained and reproduced. Versions are live or retired; the newest live one is the default.
 */
export interface ScoreVersion {
  id: string;
  status: 'live' | 'retired';
  /** Multiplier applied to each component's base points. */
  weights: Record<string, number>;
  /**
   * Ascending raw-risk values at the 0th..100th percentile of the reference population:
   * score = share of the population whose raw risk is strictly below the subject's.
   */
  quantiles: readonly number[];
  referencePopulation: string;
}

const BASE_WEIGHTS: Record<string, number> = {
  caller_id_integrity: 1,
  ndc_range_risk: 1,
  reputation_ledger: 1,
  ip_network_type: 1,
  ip_tor_exit: 1,
  ip_vpn_proxy: 1,
};

/** Evenly spread quantiles over [0, max]; stands in until a calibration table is built for a version. */
function linearQuantiles(max: number): number[] {
  return Array.from({ length: 101 }, (_, i) => (i * max) / 100);
}

export const SCORE_VERSIONS: readonly ScoreVersion[] = [
  {
    id: '2026.11.0',
    status: 'live',
    weights: BASE_WEIGHTS,
    quantiles: linearQuantiles(100),
    referencePopulation: 'reference population of 2026.11.0',
  },
];

export function defaultVersion(): ScoreVersion {
  const live = SCORE_VERSIONS.filter((v) => v.status === 'live');
  return live[live.length - 1]!;
}

export function findVersion(id: string): ScoreVersion | undefined {
  return SCORE_VERSIONS.find((v) => v.id === id);
}
