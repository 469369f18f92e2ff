// Steady traffic per tier at a constant arrival rate: each tier's organisation at 80 % of its
// rate limit, so no request should be refused and latency must hold.
import {
  checkScored,
  RATES,
  score,
  secs,
  subject,
  SUMMARY_TREND_STATS,
  summaryWriter,
  thresholds,
  constantRate,
} from './lib/common.js';

const tiers = ['verify', 'assess', 'bureau'];

export const options = {
  summaryTrendStats: SUMMARY_TREND_STATS,
  scenarios: Object.fromEntries(
    tiers.map((tier) => [
      tier,
      constantRate(RATES[tier] * 0.8, secs(60), { env: { TIER: tier }, exec: 'run' }),
    ]),
  ),
  thresholds: thresholds(),
};

export function run() {
  checkScored(score(__ENV.TIER, { subject: subject() }));
}

export const handleSummary = summaryWriter('steady');
