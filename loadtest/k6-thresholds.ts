/**
 * The latency thresholds of `npm run k6` from a same-run baseline, and which thresholds a run
 * crossed, read from its summary.
 */

/** What k6/baseline.js measured: scoring at a low rate on the same nodes just before the scenario. */
export interface Baseline {
  requests: number;
  failed: number;
  p95: number;
  p99: number;
}

/**
 * How much slower than the baseline a scenario's p95 and p99 may be: its load queues requests
 * behind each other on the nodes, Redis and Kafka, and that is what a threshold should catch.
 * Chosen from same-run measurements (docs/performance.md, "k6 thresholds"); override with
 * K6_P95_RATIO / K6_P99_RATIO.
 */
export const DEFAULT_RATIOS = { p95: 3, p99: 4 };
/**
 * Below these a ratio means nothing: a 2 ms baseline times 3 is one scheduler tick of a shared
 * machine. The idle machine's budget (25 ms p95, 50 ms p99) is the least a threshold allows.
 */
export const FLOOR_MS = { p95: 25, p99: 50 };

export function latencyThresholds(base: Baseline, ratios = DEFAULT_RATIOS): { p95: number; p99: number } {
  if (!(base.requests > 0) || base.failed > 0 || !Number.isFinite(base.p95) || !Number.isFinite(base.p99))
    throw new Error(
      `the baseline is not a measurement (${base.requests} requests, ${(base.failed * 100).toFixed(1)} % failed)`,
    );
  return {
    p95: Math.max(FLOOR_MS.p95, Math.ceil(base.p95 * ratios.p95)),
    p99: Math.max(FLOOR_MS.p99, Math.ceil(base.p99 * ratios.p99)),
  };
}

interface SummaryMetric {
  values?: Record<string, number>;
  thresholds?: Record<string, { ok: boolean }>;
}

/**
 * Each threshold a run crossed, with what was observed: `http_req_duration{…} p(99)<80: 93.21`.
 * Reads the summary JSON k6 hands to handleSummary (k6/lib/common.js writes it).
 */
export function crossedThresholds(summary: { metrics: Record<string, SummaryMetric> }): string[] {
  const out: string[] = [];
  for (const [metric, m] of Object.entries(summary.metrics)) {
    for (const [expr, t] of Object.entries(m.thresholds ?? {})) {
      if (t.ok) continue;
      const stat = /^\s*([a-z]+(?:\(\d+(?:\.\d+)?\))?)/.exec(expr)?.[1];
      const seen = stat === undefined ? undefined : m.values?.[stat];
      out.push(`${metric} ${expr}: ${seen === undefined ? 'crossed' : Number(seen.toFixed(3))}`);
    }
  }
  return out;
}
