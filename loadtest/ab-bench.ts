/**
 * Same-run A/B of two checkouts' API nodes: one node of each on the same stack, k6 at a constant
 * rate against one then the other, rounds alternating, medians reported. For measuring what one
 * change costs on a machine whose noise swamps run-to-run comparisons.
 *
 *   git archive <commit> | tar -x -C /tmp/before && ln -s "$PWD/node_modules" /tmp/before/
 *   node loadtest/ab-bench.ts /tmp/before            (RATE=100 ROUNDS=5 DURATION=10s)
 *   NODE_FLAGS_AFTER=--max-semi-space-size=32 node loadtest/ab-bench.ts .   (a runtime flag)
 *
 * MODE=saturate (VUS=32) drives each node closed-loop instead, for what a change costs in CPU:
 * every round also reports the node's CPU per request (user + system, from /proc).
 *
 * PIN=1 measures the way the bench's pinned stage does: both nodes on core 1 (`taskset`), k6 and
 * the stack's servers moved to core 0 for the rounds, for what a change does to the pinned tail.
 *
 * SETUP=loadtest/ab-setups/<name>.ts gives either side an environment or an organisation of its
 * own, for an A/B of data or configuration on one checkout (`node loadtest/ab-bench.ts .`): a
 * populated velocity table, a configured phone provider, an organisation holding 100,000 list
 * entries. See loadtest/ab-setups/setup.ts.
 *
 * ONE_NODE=1, for a setup whose sides differ only in the organisation they score for: both sides
 * score on one node, so the comparison carries no difference between two processes' compiled
 * code (two identical nodes differ by several per cent in CPU per request, and not always the same
 * way). Rounds alternate which side goes first, and the report adds the median of the rounds'
 * after/before ratios of CPU per request.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createRedis } from '../shared/clients/redis.ts';
import { loadConfig } from '../shared/config.ts';
import { OrgStore } from '../shared/orgs/store.ts';
import { publishSnapshots } from '../infra/harness/snapshots.ts';
import { freePort } from '../infra/harness/processes.ts';
import type { AbSetup } from './ab-setups/setup.ts';
import { cpuMicros } from './proc-cpu.ts';
import { shieldCore, stackPids } from './core-shield.ts';
import { API_NODE_FLAGS } from '../services/api/runtime-flags.ts';

const ROOT = join(import.meta.dirname, '..');
const before = process.argv[2];
if (!before || !existsSync(join(before, 'services/api/main.ts'))) {
  console.error('usage: node loadtest/ab-bench.ts <checkout of the code before>');
  process.exit(2);
}
const RATE = process.env.RATE ?? '100';
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const DURATION = process.env.DURATION ?? '10s';
const MODE = process.env.MODE === 'saturate' ? 'saturate' : 'rate';
const VUS = process.env.VUS ?? '32';
const PIN = process.env.PIN === '1';
const ONE_NODE = process.env.ONE_NODE === '1';
const onCore = (core: number) => (PIN ? ['taskset', '-c', String(core)] : []);

const cfg = loadConfig();
// API nodes build no snapshot: publish the ones Redis lacks first, as a deployment does.
await publishSnapshots();
const redis = createRedis(cfg.REDIS_URL, { connectionName: 'frs-ab-bench' });
const store = new OrgStore(redis);
const org = await store.createOrg({ name: 'ab', tier: 'bureau', rateRps: 1_000_000, credits: 1_000_000_000 });
const apiKey = (await store.createKey(org.org_id)).api_key;
const setup: AbSetup = process.env.SETUP
  ? await (await import(join(ROOT, process.env.SETUP))).default({ cfg, redis, store })
  : {};
const subjects = join(ROOT, 'loadtest/results/subjects.json');
if (!existsSync(subjects)) execFileSync(process.execPath, [join(ROOT, 'loadtest/subjects.ts')]);

// NODE_FLAGS_BEFORE / NODE_FLAGS_AFTER: runtime flags of either node (space-separated), for an
// A/B of a flag on one checkout (`node loadtest/ab-bench.ts .` with flags on one side).
// Unset: the API node's own runtime flags (services/api/runtime-flags.ts); '' for V8's defaults.
const flags = (v: string | undefined) => (v ?? API_NODE_FLAGS.join(' ')).split(' ').filter(Boolean);
const targets = [
  {
    name: 'before',
    root: before,
    port: await freePort(),
    flags: flags(process.env.NODE_FLAGS_BEFORE),
    env: setup.before?.env ?? {},
    apiKey: setup.before?.apiKey ?? apiKey,
  },
  {
    name: 'after',
    root: ROOT,
    port: await freePort(),
    flags: flags(process.env.NODE_FLAGS_AFTER),
    env: setup.after?.env ?? {},
    apiKey: setup.after?.apiKey ?? apiKey,
  },
];
if (
  ONE_NODE &&
  (resolve(before) !== ROOT || targets.some((t) => t.flags.length > 0 || Object.keys(t.env).length > 0))
) {
  console.error(
    'ONE_NODE=1 compares organisations on one node: run it on `.`, with no flags or environment per side',
  );
  process.exit(2);
}
// With ONE_NODE both sides score on the `after` node.
const nodes = (ONE_NODE ? targets.slice(1) : targets).map((t) => {
  const cmd = [...onCore(1), process.execPath, ...t.flags, join(t.root, 'services/api/main.ts')];
  return spawn(cmd[0]!, cmd.slice(1), {
    cwd: t.root,
    env: {
      ...process.env,
      LOG_LEVEL: 'warn',
      PORT: String(t.port),
      NODE_ID: `ab-${t.name}`,
      AUDIT_JOURNAL_DIR: join(tmpdir(), 'frs-ab-journal'),
      ...t.env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
});
if (ONE_NODE) targets[0]!.port = targets[1]!.port;
const nodeOf = (i: number) => nodes[ONE_NODE ? 0 : i]!;
for (const t of targets) {
  for (let i = 0; i < 900; i++) {
    const ok = await fetch(`http://127.0.0.1:${t.port}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    await new Promise((r) => setTimeout(r, 200));
  }
}
const k6 = execFileSync('bash', [join(ROOT, 'infra/local/k6.sh')], { encoding: 'utf8' }).trim();
function run(port: number, pid: number, duration: string, key: string) {
  const out = join(tmpdir(), `frs-ab-${process.pid}.json`);
  const cpuBefore = cpuMicros([pid]);
  const cmd = [...onCore(0), k6, 'run', '--quiet', '--summary-export', out, join(ROOT, 'k6/bench.js')];
  spawnSync(cmd[0]!, cmd.slice(1), {
    env: {
      ...process.env,
      K6_NO_USAGE_REPORT: 'true',
      // k6's REST API on a free port: two runs at once (two benches) must not collide on 6565.
      K6_ADDRESS: '127.0.0.1:0',
      KIND: 'score',
      MODE,
      RATE,
      VUS,
      DURATION: duration,
      BASE_URLS: `http://127.0.0.1:${port}`,
      API_KEY: key,
      SUBJECTS_FILE: subjects,
    },
  });
  const cpu = cpuMicros([pid]) - cpuBefore;
  const m = JSON.parse(readFileSync(out, 'utf8')).metrics;
  rmSync(out);
  return {
    rps: m.http_reqs.rate as number,
    cpuUs: cpu / (m.http_reqs.count as number),
    p50: m.http_req_duration.med as number,
    p99: m.http_req_duration['p(99)'] as number,
    failed: m.http_req_failed?.value ?? 0,
  };
}
const unshield = PIN ? shieldCore(1, stackPids(cfg)) : () => {};
targets.forEach((t, i) => run(t.port, nodeOf(i).pid!, '5s', t.apiKey)); // unmeasured warm-up
type Round = ReturnType<typeof run>;
const rounds: Record<string, Round[]> = { before: [], after: [] };
for (let r = 1; r <= ROUNDS; r++) {
  // Odd rounds before first, even rounds after first: whatever the second step of a round meets
  // (a warmer cache, a collection the first one left) falls on each side alike.
  const order = r % 2 === 1 ? [0, 1] : [1, 0];
  order.forEach((i) => {
    const t = targets[i]!;
    const s = run(t.port, nodeOf(i).pid!, DURATION, t.apiKey);
    rounds[t.name]!.push(s);
    console.error(
      `[ab] round ${r} ${t.name}: ${s.rps.toFixed(0)} req/s, ${s.cpuUs.toFixed(0)} µs CPU per request, ` +
        `p50 ${s.p50.toFixed(2)} ms, p99 ${s.p99.toFixed(2)} ms, failed ${s.failed}`,
    );
  });
}
unshield();
for (const n of nodes) n.kill('SIGTERM');
await setup.teardown?.();
redis.disconnect();
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const ratios = rounds.after!.map((a, i) => a.cpuUs / rounds.before![i]!.cpuUs);
console.log(
  `CPU per request, after/before: median of the rounds' ratios ${median(ratios).toFixed(3)} ` +
    `(${Math.min(...ratios).toFixed(3)}-${Math.max(...ratios).toFixed(3)})${ONE_NODE ? ', both sides on one node' : ''}`,
);
for (const [name, xs] of Object.entries(rounds)) {
  const failed = Math.max(...xs.map((x) => x.failed));
  console.log(
    `${name}: median ${median(xs.map((x) => x.rps)).toFixed(0)} req/s, ${median(xs.map((x) => x.cpuUs)).toFixed(0)} µs CPU per request, ` +
      `p50 ${median(xs.map((x) => x.p50)).toFixed(2)} ms, p99 ${median(xs.map((x) => x.p99)).toFixed(2)} ms` +
      (failed > 0 ? ` — REFUSED: ${(failed * 100).toFixed(2)} % failed requests` : ''),
  );
}
