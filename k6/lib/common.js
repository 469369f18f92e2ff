// Shared options, data and checks for every scenario. Scenarios import from here only, so a
// threshold or a header changes in one place.
import http from 'k6/http';
import { check } from 'k6';
import { SharedArray } from 'k6/data';
import exec from 'k6/execution';

/** Comma list of API nodes; requests go round-robin across them. */
export const BASE_URLS = (__ENV.BASE_URLS || 'http://127.0.0.1:8080').split(',');

/** {verify, assess, bureau} -> API key, written by `npm run k6` for this run only. */
export const KEYS = JSON.parse(open(__ENV.KEYS_FILE));
/** {verify, assess, bureau} -> rate_rps of the run's organisations. */
export const RATES = JSON.parse(__ENV.RATES || '{"verify":10,"assess":50,"bureau":200}');

export const SUBJECTS = new SharedArray('subjects', () => JSON.parse(open(__ENV.SUBJECTS_FILE)));

/** Scale every duration of a scenario, e.g. DURATION_SCALE=0.2 for a quick smoke run. */
export const SCALE = Number(__ENV.DURATION_SCALE || '1');
export function secs(n) {
  return `${Math.max(1, Math.round(n * SCALE))}s`;
}

/**
 * Latency thresholds in ms. `npm run k6` sets them from a same-run baseline (k6/baseline.js):
 * a ratio of this machine's unloaded p95/p99 measured just before the scenario, so a threshold
 * says "the scenario's load made scoring this much slower", not "this machine is slower than the
 * one the number was chosen on" (loadtest/k6-run.ts, docs/performance.md). P95_MS / P99_MS given
 * by hand are used as they are; without either, the documented budget of an idle machine.
 */
export const P95_MS = Number(__ENV.P95_MS || '25');
export const P99_MS = Number(__ENV.P99_MS || '50');

export const SUMMARY_TREND_STATS = ['avg', 'min', 'med', 'max', 'p(90)', 'p(95)', 'p(99)'];

/** The thresholds every scenario carries; `extra` adds scenario-specific ones. */
export function thresholds(extra = {}) {
  return {
    http_req_failed: ['rate<0.001'],
    'http_req_duration{expected_response:true}': [`p(95)<${P95_MS}`, `p(99)<${P99_MS}`],
    dropped_iterations: ['count<1'],
    checks: ['rate>0.999'],
    ...extra,
  };
}

/** A constant-arrival-rate scenario: `rate` iterations a second for `duration`. */
export function constantRate(rate, duration, extra = {}) {
  return {
    executor: 'constant-arrival-rate',
    rate: Math.max(1, Math.floor(rate)),
    timeUnit: '1s',
    duration,
    preAllocatedVUs: 30,
    maxVUs: 200,
    ...extra,
  };
}

/** One constant-rate scenario per tier at `fraction` of its rate limit, each running `exec`. */
export function everyTierAt(fraction, duration, exec = 'run') {
  return Object.fromEntries(
    ['verify', 'assess', 'bureau'].map((tier) => [
      tier,
      constantRate(RATES[tier] * fraction, duration, { env: { TIER: tier }, exec }),
    ]),
  );
}

let counter = 0;
export function baseUrl() {
  counter += 1;
  return BASE_URLS[counter % BASE_URLS.length];
}

export function subject() {
  return SUBJECTS[Math.floor(Math.random() * SUBJECTS.length)];
}

export function score(tier, body, headers = {}) {
  return http.post(`${baseUrl()}/v1/score`, JSON.stringify(body), {
    headers: { Authorization: `Bearer ${KEYS[tier]}`, 'Content-Type': 'application/json', ...headers },
    tags: { name: 'POST /v1/score', tier },
  });
}

/** POST /v1/outcomes of one tier's organisation. */
export function reportOutcome(tier, body, headers = {}) {
  return http.post(`${baseUrl()}/v1/outcomes`, JSON.stringify(body), {
    headers: { Authorization: `Bearer ${KEYS[tier]}`, 'Content-Type': 'application/json', ...headers },
    tags: { name: 'POST /v1/outcomes', tier },
  });
}

/** A 202 with an outcome id and the rate-limit headers of the outcomes window. */
export function checkReported(res) {
  return check(res, {
    'status 202': (r) => r.status === 202,
    'outcome_id oc_': (r) => r.status === 202 && /^oc_[0-9a-f]{32}$/.test(r.json('outcome_id')),
    'outcome rate headers': (r) => r.headers['X-Ratelimit-Limit'] !== undefined,
  });
}

/** A 200 that carries the contract's required fields and rate-limit headers. */
export function checkScored(res) {
  return check(res, {
    'status 200': (r) => r.status === 200,
    'score_id sc_': (r) => r.status === 200 && /^sc_[0-9a-f]{32}$/.test(r.json('score_id')),
    'rate headers': (r) => r.headers['X-Ratelimit-Limit'] !== undefined,
  });
}

/** Writes the k6 summary as JSON beside the HTML dashboard export, and a short text line. */
export function summaryWriter(name) {
  return (data) => {
    const out = __ENV.OUT_DIR || 'loadtest/results';
    const d = data.metrics.http_req_duration && data.metrics.http_req_duration.values;
    const line = d
      ? `${name}: ${data.metrics.http_reqs.values.count} requests, p95 ${d['p(95)'].toFixed(2)} ms, p99 ${(d['p(99)'] || 0).toFixed(2)} ms\n`
      : `${name}: no requests\n`;
    return { [`${out}/${name}.json`]: JSON.stringify(data, null, 2), stdout: line };
  };
}

export function iterationInTest() {
  return exec.scenario.iterationInTest;
}
