// Scoring and outcome reports together, per tier: every iteration scores a subject and reports
// an outcome about the score it got back, at 80 % of the tier's rate. Outcomes are rate-limited
// in a window of their own, so both streams run at that rate side by side and nothing should be
// refused; the report's latency includes finding the fresh score (its entry in the recent-score
// index on the cache Redis, written for every score whatever the explain-copy share).
// Only suspected_fraud and not_fraud are reported: a load test must not teach the reputation
// ledger that the benchmark's subjects are fraud (that would change later runs' scores).
import {
  checkReported,
  checkScored,
  everyTierAt,
  reportOutcome,
  score,
  secs,
  subject,
  SUMMARY_TREND_STATS,
  summaryWriter,
  thresholds,
} from './lib/common.js';

export const options = {
  summaryTrendStats: SUMMARY_TREND_STATS,
  scenarios: everyTierAt(0.8, secs(60)),
  thresholds: thresholds({
    'http_reqs{name:POST /v1/score}': ['count>0'],
    'http_reqs{name:POST /v1/outcomes}': ['count>0'],
  }),
};

export function run() {
  const scored = score(__ENV.TIER, { subject: subject() });
  if (!checkScored(scored)) return;
  checkReported(
    reportOutcome(__ENV.TIER, {
      score_id: scored.json('score_id'),
      outcome: Math.random() < 0.5 ? 'not_fraud' : 'suspected_fraud',
      client_reference: `k6-${scored.json('score_id')}`,
    }),
  );
}

export const handleSummary = summaryWriter('outcomes');
