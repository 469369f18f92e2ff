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
} from './lib/common.js';

const tiers = ['verify', 'assess', 'bureau'];

export const options = {
  summaryTrendStats: SUMMARY_TREND_STATS,
  scenarios: Object.fromEntries(
    tiers.map((tier) => [
      tier,
      {
        executor: 'constant-arrival-rate',
        rate: Math.max(1, Math.floor(RATES[tier] * 0.8)),
        timeUnit: '1s',
        duration: secs(60),
        preAllocatedVUs: 20,
        maxVUs: 100,
        env: { TIER: tier },
        exec: 'run',
      },
    ]),
  ),
  thresholds: thresholds(),
};

export function run() {
  checkScored(score(__ENV.TIER, { subject: subject() }));
}

export const handleSummary = summaryWriter('steady');
