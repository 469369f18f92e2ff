// A spike: from a quiet 10 % of the bureau rate to 100 % in two seconds, held, then back.
// Within the rate limit, so every request must be served.
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

export const options = {
  summaryTrendStats: SUMMARY_TREND_STATS,
  scenarios: {
    spike: {
      executor: 'ramping-arrival-rate',
      startRate: Math.max(1, Math.floor(RATES.bureau * 0.1)),
      timeUnit: '1s',
      preAllocatedVUs: 50,
      maxVUs: 300,
      stages: [
        { target: Math.floor(RATES.bureau * 0.1), duration: secs(10) },
        { target: Math.floor(RATES.bureau * 0.95), duration: '2s' },
        { target: Math.floor(RATES.bureau * 0.95), duration: secs(20) },
        { target: Math.floor(RATES.bureau * 0.1), duration: '2s' },
        { target: Math.floor(RATES.bureau * 0.1), duration: secs(10) },
      ],
    },
  },
  thresholds: thresholds(),
};

export default function () {
  checkScored(score('bureau', { subject: subject() }));
}

export const handleSummary = summaryWriter('spike');
