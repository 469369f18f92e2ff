// The same-run baseline of `npm run k6`: POST /v1/score for the bureau organisation at a low
// constant rate, before the scenario, on the same nodes and the same machine at the same time.
// Its p95 and p99 are what this machine does for one score with no load of ours; the scenario's
// latency thresholds are stated as ratios to them (loadtest/k6-run.ts), so another tenant's load
// moves both sides. No thresholds here: a baseline is a measurement, not a test.
import { checkScored, constantRate, score, subject, SUMMARY_TREND_STATS } from './lib/common.js';

export const options = {
  summaryTrendStats: SUMMARY_TREND_STATS,
  scenarios: {
    baseline: constantRate(Number(__ENV.BASELINE_RATE || '10'), __ENV.BASELINE_DURATION || '15s'),
  },
};

export default function () {
  checkScored(score('bureau', { subject: subject() }));
}

export function handleSummary(data) {
  const d = data.metrics['http_req_duration{expected_response:true}'] || data.metrics.http_req_duration;
  const out = {
    requests: data.metrics.http_reqs.values.count,
    failed: data.metrics.http_req_failed ? data.metrics.http_req_failed.values.rate : 0,
    p95: d.values['p(95)'],
    p99: d.values['p(99)'],
  };
  return { [`${__ENV.OUT_DIR || 'loadtest/results'}/baseline.json`]: JSON.stringify(out) };
}
