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
  constantRate,
} from './lib/common.js';

export const options = {
  summaryTrendStats: SUMMARY_TREND_STATS,
  scenarios: {
    soak: constantRate(RATES.bureau * 0.5, `${Number(__ENV.SOAK_MINUTES || '10')}m`),
  },
  thresholds: thresholds(),
};

export default function () {
  checkScored(score('bureau', { subject: subject() }));
}

export const handleSummary = summaryWriter('soak');
