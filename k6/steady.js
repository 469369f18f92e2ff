// Steady traffic per tier at a constant arrival rate: each tier's organisation at 80 % of its
// rate limit, so no request should be refused and latency must hold.
import {
  checkScored,
  score,
  secs,
  subject,
  SUMMARY_TREND_STATS,
  summaryWriter,
  thresholds,
  everyTierAt,
} from './lib/common.js';

export const options = {
  summaryTrendStats: SUMMARY_TREND_STATS,
  scenarios: everyTierAt(0.8, secs(60)),
  thresholds: thresholds(),
};

export function run() {
  checkScored(score(__ENV.TIER, { subject: subject() }));
}

export const handleSummary = summaryWriter('steady');
