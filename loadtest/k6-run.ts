/**
 * `npm run k6 -- <scenario> [k6 args…]`: runs k6/<scenario>.js against the local stack.
 *
 * Installs k6 if needed, makes one organisation per tier for this run (with the tier's default
 * rate unless RATES='{"bureau":400,…}' says otherwise, and credits enough for the run), writes
 * their keys to a private temporary file that k6 reads and that is deleted afterwards, and
 * writes the summary JSON and the k6 HTML report to loadtest/results/.
 * Targets BASE_URLS (default: the two API nodes of `npm start`).
 *
 * Latency thresholds: unless P95_MS and P99_MS are given, k6/baseline.js first scores at a low
 * rate (BASELINE_RATE, default 10/s, for BASELINE_DURATION, default 15 s) on the same nodes, and
 * the scenario's p95/p99 thresholds are K6_P95_RATIO / K6_P99_RATIO times its p95/p99
 * (loadtest/k6-thresholds.ts), never under the idle budget of 25 / 50 ms. After the run every
 * crossed threshold is printed with the value observed. K6_BASELINE=0 skips the baseline.
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRedis } from '../shared/clients/redis.ts';
import { loadConfig } from '../shared/config.ts';
import { TIERS, type Tier } from '../shared/vocabulary/score-terms.ts';
import { DEFAULT_RATE_RPS, OrgStore } from '../shared/orgs/store.ts';
import { freePort } from '../infra/harness/processes.ts';
import { publishSnapshots } from '../infra/harness/snapshots.ts';
import { crossedThresholds, DEFAULT_RATIOS, latencyThresholds, type Baseline } from './k6-thresholds.ts';
import { API_NODE_FLAGS } from '../services/api/runtime-flags.ts';

const ROOT = join(import.meta.dirname, '..');
const [scenario, ...k6Args] = process.argv.slice(2);
const script = scenario ? join(ROOT, 'k6', `${scenario}.js`) : '';
if (!scenario || !existsSync(script)) {
  console.error(
    'usage: npm run k6 -- <steady|burst|mixed|idempotent|degraded|spike|soak|outcomes> [k6 args…]',
  );
  process.exit(2);
}

let baseUrls = process.env.BASE_URLS ?? 'http://127.0.0.1:8080,http://127.0.0.1:8081';
// API nodes build no snapshot: publish the ones Redis lacks first, as a deployment does.
if (!process.env.BASE_URLS) await publishSnapshots();

// `degraded` against the live ledger sets up its own degraded node (unless BASE_URLS names
// nodes the caller degraded by hand): an API node whose ledger Redis is a port nobody listens on.
let degradedNode: ChildProcess | undefined;
if (
  scenario === 'degraded' &&
  !process.env.BASE_URLS &&
  (process.env.DEGRADED ?? 'reputation_ledger') === 'reputation_ledger'
) {
  const port = await freePort();
  degradedNode = spawn(process.execPath, [...API_NODE_FLAGS, join(ROOT, 'services/api/main.ts')], {
    cwd: ROOT,
    env: {
      ...process.env,
      LOG_LEVEL: 'error',
      PORT: String(port),
      NODE_ID: `k6-degraded-${port}`,
      LEDGER_REDIS_URL: `redis://127.0.0.1:${await freePort()}`,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  baseUrls = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 900; i++) {
    const ok = await fetch(`${baseUrls}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  console.error(`[k6] degraded: an API node of its own on ${baseUrls}, its ledger Redis unreachable`);
}
for (const url of baseUrls.split(',')) {
  const ok = await fetch(`${url}/readyz`).then(
    (r) => r.ok,
    () => false,
  );
  if (!ok) {
    console.error(`[k6] ${url} is not ready: start the stack first (npm start) or set BASE_URLS`);
    process.exit(2);
  }
}

const rates: Record<Tier, number> = { ...DEFAULT_RATE_RPS, ...JSON.parse(process.env.RATES ?? '{}') };
const results = join(ROOT, 'loadtest', 'results');
mkdirSync(results, { recursive: true });
const subjectsFile = join(results, 'subjects.json');
if (!existsSync(subjectsFile))
  execFileSync(process.execPath, [join(ROOT, 'loadtest', 'subjects.ts')], { stdio: 'inherit' });

const cfg = loadConfig();
const redis = createRedis(cfg.REDIS_URL, { connectionName: 'frs-k6' });
const store = new OrgStore(redis);
const keys: Record<string, string> = {};
for (const tier of TIERS) {
  const org = await store.createOrg({
    name: `k6-${scenario}-${tier}`,
    tier,
    rateRps: rates[tier],
    credits: 50_000_000,
  });
  keys[tier] = (await store.createKey(org.org_id)).api_key;
}
redis.disconnect();

const secretDir = mkdtempSync(join(tmpdir(), 'frs-k6-'));
const keysFile = join(secretDir, 'keys.json');
writeFileSync(keysFile, JSON.stringify(keys), { mode: 0o600 });

const k6 = execFileSync('bash', [join(ROOT, 'infra', 'local', 'k6.sh')], { encoding: 'utf8' }).trim();
const k6Env = {
  ...process.env,
  BASE_URLS: baseUrls,
  KEYS_FILE: keysFile,
  SUBJECTS_FILE: subjectsFile,
  RATES: JSON.stringify(rates),
  OUT_DIR: results,
  K6_NO_USAGE_REPORT: 'true',
  // k6's REST API on a free port: two runs at once (two benches) must not collide on 6565.
  K6_ADDRESS: '127.0.0.1:0',
};

const limits: Record<string, string> = {};
if (process.env.K6_BASELINE !== '0' && !(process.env.P95_MS && process.env.P99_MS)) {
  const b = spawnSync(k6, ['run', '--quiet', join(ROOT, 'k6', 'baseline.js')], {
    cwd: ROOT,
    stdio: 'inherit',
    env: k6Env,
  });
  const file = join(results, 'baseline.json');
  if (b.status !== 0 || !existsSync(file)) {
    console.error(`[k6] the baseline run failed (exit ${b.status}); no thresholds to state`);
    process.exit(2);
  }
  const base = JSON.parse(readFileSync(file, 'utf8')) as Baseline;
  const ratios = {
    p95: Number(process.env.K6_P95_RATIO ?? DEFAULT_RATIOS.p95),
    p99: Number(process.env.K6_P99_RATIO ?? DEFAULT_RATIOS.p99),
  };
  const t = latencyThresholds(base, ratios);
  limits.P95_MS = process.env.P95_MS ?? String(t.p95);
  limits.P99_MS = process.env.P99_MS ?? String(t.p99);
  console.error(
    `[k6] baseline (${base.requests} scores at ${process.env.BASELINE_RATE ?? 10}/s): p95 ${base.p95.toFixed(1)} ms, ` +
      `p99 ${base.p99.toFixed(1)} ms -> thresholds p95 < ${limits.P95_MS} ms (x${ratios.p95}), ` +
      `p99 < ${limits.P99_MS} ms (x${ratios.p99}), never under 25 / 50 ms`,
  );
}

const run = spawnSync(k6, ['run', '--quiet', ...k6Args, script], {
  cwd: ROOT,
  stdio: 'inherit',
  env: {
    ...k6Env,
    ...limits,
    K6_WEB_DASHBOARD: 'true',
    K6_WEB_DASHBOARD_PORT: '-1',
    K6_WEB_DASHBOARD_PERIOD: '2s',
    K6_WEB_DASHBOARD_EXPORT: join(results, `${scenario}.html`),
  },
});
const summaryFile = join(results, `${scenario}.json`);
if (run.status !== 0 && existsSync(summaryFile))
  for (const crossed of crossedThresholds(JSON.parse(readFileSync(summaryFile, 'utf8'))))
    console.error(`[k6] threshold crossed: ${crossed}`);
rmSync(secretDir, { recursive: true, force: true });
degradedNode?.kill('SIGTERM');
console.error(
  `[k6] ${scenario}: exit ${run.status}; summary ${join(results, `${scenario}.json`)}, report ${join(results, `${scenario}.html`)}`,
);
process.exit(run.status ?? 1);
