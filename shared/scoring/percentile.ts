/**
 * The calibration table of a score version: the raw-risk distribution of its reference population,
 * built by `npm run calibrate` (shared/scoring/calibration/build.ts) and frozen with the version.
 */
export interface Calibration {
  score_version: string;
  /** How the population was drawn; documentation for whoever reproduces the table. */
  method: string;
  seed: number;
  population: number;
  /** Raw risk at the 0th..100th percentile, for reading; the score uses `cdf`. */
  quantiles: number[];
  /**
   * The distinct raw-risk values of the population, ascending, with the share of the population
   * strictly below each. Exact for ties, which are common: raw risk is a sum of a few point values.
   */
  cdf: { raw: number[]; below: number[] };
}

/**
 * Percentile rank: the share (0 to 100, rounded down) of the reference population whose raw risk
 * is strictly below `raw`. Rounded down so that "riskier than N %" is never overstated.
 */
export function percentileRank(raw: number, cal: Pick<Calibration, 'cdf'>): number {
  const { raw: values, below } = cal.cdf;
  let lo = 0;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (values[mid]! < raw) lo = mid + 1;
    else hi = mid;
  }
  const share = lo < values.length ? below[lo]! : 1;
  return Math.max(0, Math.min(100, Math.floor(share * 100 + 1e-9)));
}

/** Builds the table from a population's raw risks. */
export function buildCdf(raws: readonly number[]): Calibration['cdf'] & { quantiles: number[] } {
  const sorted = [...raws].sort((a, b) => a - b);
  const n = sorted.length;
  const raw: number[] = [];
  const below: number[] = [];
  for (let i = 0; i < n; i++) {
    if (i === 0 || sorted[i] !== sorted[i - 1]) {
      raw.push(sorted[i]!);
      below.push(Number((i / n).toFixed(6)));
    }
  }
  const quantiles = Array.from(
    { length: 101 },
    (_, p) => sorted[Math.min(n - 1, Math.floor((p / 100) * n))]!,
  );
  return { raw, below, quantiles };
}
