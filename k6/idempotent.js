// Idempotent retries: every request is sent twice with one Idempotency-Key; the second answer
// must replay the first (same score_id, Idempotent-Replayed: true).
import { check } from 'k6';
import exec from 'k6/execution';
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

export const options = {
  summaryTrendStats: SUMMARY_TREND_STATS,
  scenarios: {
    // Two requests per iteration: stay under the tier rate.
    retries: constantRate(RATES.bureau * 0.4, secs(40)),
  },
  thresholds: thresholds(),
};

export default function () {
  const key = `k6-${exec.vu.idInTest}-${exec.scenario.iterationInTest}-${Date.now()}`;
  const body = { subject: subject(), client_reference: key };
  const first = score('bureau', body, { 'Idempotency-Key': key });
  const again = score('bureau', body, { 'Idempotency-Key': key });
  check(first, { 'first 200': (r) => r.status === 200 });
  check(again, {
    'retry 200': (r) => r.status === 200,
    'retry replayed': (r) => r.headers['Idempotent-Replayed'] === 'true',
    'same score_id': (r) =>
      r.status === 200 && first.status === 200 && r.json('score_id') === first.json('score_id'),
  });
}

export const handleSummary = summaryWriter('idempotent');
