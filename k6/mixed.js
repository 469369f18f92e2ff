// A mixed population of phones, IPs and both, drawn from real numbering ranges and ASN blocks,
// across all tiers, with explain on and off.
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

export const options = {
  summaryTrendStats: SUMMARY_TREND_STATS,
  scenarios: {
    mixed: constantRate(RATES.bureau * 0.8, secs(60)),
  },
  thresholds: thresholds(),
};

export default function () {
  const explain = Math.random() < 0.8;
  checkScored(score('bureau', { subject: subject(), options: { explain } }));
}

export const handleSummary = summaryWriter('mixed');
