// Degraded mode: with a capability down, every scoring call still answers 200, names the
// capability in degraded_sources, and latency holds (a dead source costs at most its breaker
// timeout, and nothing once the breaker is open).
//
// `npm run k6 -- degraded`:
// - the live reputation ledger (default DEGRADED=reputation_ledger): the runner starts an API
//   node of its own whose LEDGER_REDIS_URL points at a Redis that is not there (the rest of the
//   stack must be up: `npm run stack:up`). With BASE_URLS set it uses those nodes instead.
// - a snapshot capability (DEGRADED=ip_tor_exit): put the stack in degraded mode first and set
//   BASE_URLS to its nodes; point its feed at a dead URL and make its
//   freshness limit short, so the current snapshot goes stale, e.g.
//     FEED_TOR_EXITS=http://127.0.0.1:9/tor CAPABILITY_FRESHNESS_S=ip_tor_exit=5 \
//     CAPABILITY_REFRESH_S=ip_tor_exit=2 npm start
//   (with a fresh CAPABILITY_KEY_PREFIX the capability has no snapshot at all: unavailable).
// GET /v1/health shows the capability degraded or unavailable, with the reason.
import { check } from 'k6';
import { Rate } from 'k6/metrics';
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

const DEGRADED = __ENV.DEGRADED || 'reputation_ledger';
const named = new Rate('degraded_named');

export const options = {
  summaryTrendStats: SUMMARY_TREND_STATS,
  scenarios: {
    degraded: constantRate(RATES.bureau * 0.8, secs(30)),
  },
  thresholds: thresholds({ degraded_named: ['rate>0.999'] }),
};

export default function () {
  // Bureau includes every capability; subjects carry an IP when an IP capability is the one down.
  const s = subject();
  const body = DEGRADED.startsWith('ip_')
    ? { subject: { ...s, ip_address: s.ip_address || '81.2.69.142' } }
    : { subject: s };
  const res = score('bureau', body);
  const ok = check(res, {
    'status 200': (r) => r.status === 200,
    'capability named in degraded_sources': (r) =>
      r.status === 200 && (r.json('degraded_sources') || []).includes(DEGRADED),
    'its component is unavailable or still answers': (r) => {
      if (r.status !== 200) return false;
      const c = (r.json('components') || []).find((x) => x.component === DEGRADED);
      return c !== undefined && (c.verdict !== 'unavailable' || c.contribution === 0);
    },
  });
  named.add(ok);
}

export const handleSummary = summaryWriter('degraded');
