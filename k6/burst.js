// A burst at 3x the assess tier's rate: exactly the rate is served each second and every other
// request is a correct 429 (Retry-After, X-RateLimit-*). Anything else fails the run.
import http from 'k6/http';
import { check } from 'k6';
import { Counter } from 'k6/metrics';
import {
  constantRate,
  RATES,
  score,
  secs,
  subject,
  SUMMARY_TREND_STATS,
  summaryWriter,
  thresholds,
} from './lib/common.js';

const served = new Counter('served_200');
const limited = new Counter('limited_429');
const tier = __ENV.TIER || 'assess';

http.setResponseCallback(http.expectedStatuses(200, 429));

export const options = {
  summaryTrendStats: SUMMARY_TREND_STATS,
  scenarios: {
    burst: constantRate(RATES[tier] * 3, secs(20)),
  },
  thresholds: thresholds({
    // About two thirds refused; the bounds leave room for the first and last partial seconds.
    limited_429: [`count>${Math.floor(RATES[tier] * 2 * 20 * Number(__ENV.DURATION_SCALE || 1) * 0.8)}`],
  }),
};

export default function () {
  const res = score(tier, { subject: subject() });
  if (res.status === 200) served.add(1);
  if (res.status === 429) limited.add(1);
  check(res, {
    'only 200 or 429': (r) => r.status === 200 || r.status === 429,
    '429 has Retry-After >= 1': (r) => r.status !== 429 || Number(r.headers['Retry-After']) >= 1,
    '429 says E_RATE_LIMITED': (r) => r.status !== 429 || r.json('errors.0.code') === 'E_RATE_LIMITED',
    'rate limit header': (r) => Number(r.headers['X-Ratelimit-Limit']) === RATES[tier],
  });
}

export const handleSummary = summaryWriter('burst');
