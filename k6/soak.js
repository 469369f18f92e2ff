// A soak: moderate constant load for a long time (SOAK_MINUTES, default 10) to surface leaks,
// growing queues and slow drift in latency.
import {
  checkScored,
  RATES,
  score,
  subject,
  SUMMARY_TREND_STATS,
  summaryWriter,
  thresholds,
} from './lib/common.js';

export const options = {
  summaryTrendStats: SUMMARY_TREND_STATS,
  scenarios: {
    soak: {
      executor: 'constant-arrival-rate',
      rate: Math.floor(RATES.bureau * 0.5),
      timeUnit: '1s',
      duration: `${Number(__ENV.SOAK_MINUTES || '10')}m`,
      preAllocatedVUs: 30,
      maxVUs: 150,
    },
  },
  thresholds: thresholds(),
};

export default function () {
  checkScored(score('bureau', { subject: subject() }));
}

export const handleSummary = summaryWriter('soak');
