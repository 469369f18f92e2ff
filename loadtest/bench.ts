/**
 * `npm run bench`: one run, one machine, same-run baselines.
 *
 * Measures, with k6 as the load generator on this same machine:
 *   (a) a bare node:http server, (b) an Express hello-world, both with 2 worker processes,
 *   (c) the full POST /v1/score path (auth, the Redis controls script, scoring, the explain copy
 *       and audit streaming to Kafka) on 2 API nodes, (d) an Express server doing the same I/O with
 *       the same clients and nothing else (loadtest/servers/express-io.ts): the floor ioredis and
 *       kafkajs set for this shape of request. The audit sink is not running meanwhile: in
 *       production it drains scores.v1 on machines of its own, so it is measured on its own after
 *       (loadtest/audit-bench.ts: sustained rows/s and score-to-row lag).
 * For each: throughput at saturation (closed loop, BENCH_VUS virtual users; the median of
 * BENCH_ROUNDS rounds that alternate between the targets), then p50/p99 at
 * 25 %, 50 % and 75 % of that saturation rate (open loop, constant arrival rate). Writes
 * loadtest/results/bench.md (the table, ratios against (a) and (b)) and bench.png (latency
 * against offered load). Then (c) again at half its saturation with a private Kafka up and then
 * stopped (p99 during an outage against steady), and the audit sink on its own.
 * BENCH_DURATION (seconds per step, default 10) trades time for noise; BENCH_WARMUP (seconds,
 * default 8) is the unmeasured run each target gets first.
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRedis } from '../shared/clients/redis.ts';
import { loadConfig } from '../shared/config.ts';
import { OrgStore } from '../shared/orgs/store.ts';
import { startPrivateStack } from '../infra/harness/private-stack.ts';
import { freePort } from '../infra/harness/processes.ts';
import { publishSnapshots } from '../infra/harness/snapshots.ts';
import { latencyChartSvg, svgToPng } from './chart.ts';
import { listeningPids, shieldCore, stackPorts } from './core-shield.ts';
import { cpuMicros } from './proc-cpu.ts';

const ROOT = join(import.meta.dirname, '..');
const RESULTS = join(ROOT, 'loadtest', 'results');
const DURATION = `${Number(process.env.BENCH_DURATION ?? 10)}s`;
const VUS = Number(process.env.BENCH_VUS ?? 64);
const FRACTIONS = [0.25, 0.5, 0.75];
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const WARMUP = `${Number(process.env.BENCH_WARMUP ?? 8)}s`;

interface Step {
  offered: number;
  rps: number;
  requests: number;
  p50: number;
  p99: number;
  failed: number;
  /** CPU the target's server processes spent per request in this step (µs), from /proc. */
  cpuUs?: number;
}
interface TargetResult {
  name: string;
  saturation: Step;
  points: Step[];
}
interface Target {
  name: string;
  env: Record<string, string>;
  /** The target's server processes, whose CPU is counted per request. */
  pids: () => number[];
}

const log = (m: string) => console.error(`[bench] ${m}`);

function k6Bin(): string {
  return execFileSync('bash', [join(ROOT, 'infra', 'local', 'k6.sh')], { encoding: 'utf8' }).trim();
}

/**
 * One k6 step. Refuses (throws) when any request failed: a figure measured on errors (a 422 for
 * every request, say) is not a figure of the path it claims to measure.
 */
function runK6(env: Record<string, string>, pids: number[] = [], prefix: string[] = []): Step {
  const out = join(tmpdir(), `frs-bench-${process.pid}.json`);
  const cpuBefore = cpuMicros(pids);
  const cmd = [...prefix, k6Bin(), 'run', '--quiet', '--summary-export', out, join(ROOT, 'k6', 'bench.js')];
  const r = spawnSync(cmd[0]!, cmd.slice(1), {
    // K6_ADDRESS: k6's REST API on a free port, so two benches at once do not collide on 6565.
    env: { ...process.env, K6_NO_USAGE_REPORT: 'true', K6_ADDRESS: '127.0.0.1:0', DURATION, ...env },
    encoding: 'utf8',
  });
  const cpu = cpuMicros(pids) - cpuBefore;
  if (!existsSync(out)) throw new Error(`k6 failed: ${r.stderr}`);
  const m = JSON.parse(readFileSync(out, 'utf8')).metrics;
  rmSync(out);
  const step: Step = {
    offered: Number(env.RATE ?? 0),
    rps: m.http_reqs.rate,
    requests: m.http_reqs.count,
    p50: m.http_req_duration.med,
    p99: m.http_req_duration['p(99)'],
    failed: m.http_req_failed?.value ?? 0,
    ...(pids.length > 0 ? { cpuUs: cpu / m.http_reqs.count } : {}),
  };
  if (step.failed > 0 || step.requests === 0) {
    throw new Error(
      `refusing to publish: a step against ${env.BASE_URLS} had ${(step.failed * 100).toFixed(2)} % failed ` +
        `requests of ${step.requests} (the bench's organisation has no rate limit, so none are intended)`,
    );
  }
  return step;
}

function median(steps: Step[]): Step {
  return [...steps].sort((x, y) => x.rps - y.rps)[Math.floor(steps.length / 2)]!;
}

function measureAll(targets: Target[]): TargetResult[] {
  // Every target first runs once unmeasured: fresh processes are still compiling their hot path,
  // and (c) has far more of it, so without this the first round understates it most.
  for (const t of targets) {
    const s = runK6({ ...t.env, MODE: 'saturate', VUS: String(VUS), DURATION: WARMUP });
    log(`warm-up: ${t.name} ${s.rps.toFixed(0)} req/s (not counted)`);
  }
  const rounds: Step[][] = targets.map(() => []);
  for (let r = 1; r <= ROUNDS; r++) {
    targets.forEach((t, i) => {
      const s = runK6({ ...t.env, MODE: 'saturate', VUS: String(VUS) }, t.pids());
      log(
        `round ${r}: ${t.name} ${s.rps.toFixed(0)} req/s at saturation (${VUS} VUs), ${s.cpuUs!.toFixed(0)} µs server CPU per request`,
      );
      rounds[i]!.push(s);
    });
  }
  return targets.map((t, i) => measureLatency(t.name, t.env, median(rounds[i]!)));
}

function measureLatency(name: string, env: Record<string, string>, saturation: Step): TargetResult {
  log(`${name}: median saturation ${saturation.rps.toFixed(0)} req/s`);
  const points = FRACTIONS.map((f) => {
    const rate = Math.max(1, Math.round(saturation.rps * f));
    const s = runK6({ ...env, MODE: 'rate', RATE: String(rate) });
    log(
      `${name}: ${rate} req/s offered -> p50 ${s.p50.toFixed(2)} ms, p99 ${s.p99.toFixed(2)} ms, failed ${(s.failed * 100).toFixed(2)} %`,
    );
    return s;
  });
  return { name, saturation, points };
}

function spawnNode(entry: string, env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, [join(ROOT, entry)], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

async function waitOk(url: string): Promise<void> {
  for (let i = 0; i < 150; i++) {
    const ok = await fetch(url).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} not ready`);
}

async function withServers<T>(procs: ChildProcess[], readyUrls: string[], fn: () => T): Promise<T> {
  try {
    await Promise.all(readyUrls.map(waitOk));
    return await fn();
  } finally {
    for (const p of procs) p.kill('SIGTERM');
    await Promise.all(
      procs.map((p) => new Promise((r) => (p.exitCode !== null ? r(null) : p.once('exit', r)))),
    );
  }
}

mkdirSync(RESULTS, { recursive: true });
execFileSync('bash', [join(ROOT, 'infra', 'local', 'stack.sh'), 'up'], { stdio: 'inherit' });
const subjectsFile = join(RESULTS, 'subjects.json');
if (!existsSync(subjectsFile))
  execFileSync(process.execPath, [join(ROOT, 'loadtest', 'subjects.ts')], { stdio: 'inherit' });
// An empty or broken population would turn every scoring request into a 422: fail before measuring.
{
  let subjects: unknown;
  try {
    subjects = JSON.parse(readFileSync(subjectsFile, 'utf8'));
  } catch {
    subjects = undefined;
  }
  if (!Array.isArray(subjects) || subjects.length < 100) {
    console.error(
      `[bench] ${subjectsFile} is not a population of subjects (${Array.isArray(subjects) ? subjects.length : 'unreadable'}); ` +
        'regenerate it with `npm run subjects` (or delete it) and run again',
    );
    process.exit(1);
  }
}

const cfg = loadConfig();
// API nodes build no snapshot: publish the ones Redis lacks first, as a deployment does.
await publishSnapshots();
const redis = createRedis(cfg.REDIS_URL, { connectionName: 'frs-bench' });
const store = new OrgStore(redis);
const org = await store.createOrg({
  name: 'bench',
  tier: 'bureau',
  rateRps: 1_000_000,
  credits: 1_000_000_000,
});
const apiKey = (await store.createKey(org.org_id)).api_key;
redis.disconnect();
const port = async () => String(await freePort());
const [barePort, helloPort, ioPort, ...apiPorts] = [
  await port(),
  await port(),
  await port(),
  await port(),
  await port(),
];
const apiUrls = apiPorts.map((p) => `http://127.0.0.1:${p}`);
const servers = [
  spawnNode('loadtest/servers/bare-http.ts', { PORT: barePort!, WORKERS: '2' }),
  spawnNode('loadtest/servers/express-hello.ts', { PORT: helloPort!, WORKERS: '2' }),
  spawnNode('loadtest/servers/express-io.ts', { PORT: ioPort!, WORKERS: '2' }),
  ...apiPorts.map((p, i) =>
    spawnNode('services/api/main.ts', { PORT: p, NODE_ID: `bench-${i + 1}`, CONTROLS_NODE_COUNT: '2' }),
  ),
];
const pidsOf = (...procs: (ChildProcess | undefined)[]) => procs.map((p) => p!.pid!);

const targets: Target[] = [
  {
    name: '(a) node:http',
    env: { KIND: 'hello', BASE_URLS: `http://127.0.0.1:${barePort}` },
    pids: () => pidsOf(servers[0]),
  },
  {
    name: '(b) Express hello',
    env: { KIND: 'hello', BASE_URLS: `http://127.0.0.1:${helloPort}` },
    pids: () => pidsOf(servers[1]),
  },
  {
    name: '(c) POST /v1/score',
    env: { KIND: 'score', BASE_URLS: apiUrls.join(','), API_KEY: apiKey, SUBJECTS_FILE: subjectsFile },
    pids: () => pidsOf(servers[3], servers[4]),
  },
  {
    name: '(d) Express + the same I/O',
    env: {
      KIND: 'score',
      BASE_URLS: `http://127.0.0.1:${ioPort}`,
      API_KEY: apiKey,
      SUBJECTS_FILE: subjectsFile,
    },
    pids: () => pidsOf(servers[2]),
  },
];

// All targets run side by side and are measured in alternating rounds, so a burst of noise from
// another tenant of this shared machine lands on every target alike; the median round counts.
const results = await withServers(
  servers,
  [
    `http://127.0.0.1:${barePort}/`,
    `http://127.0.0.1:${helloPort}/`,
    `http://127.0.0.1:${ioPort}/`,
    ...apiUrls.map((u) => `${u}/readyz`),
  ],
  () => measureAll(targets),
);
const [bare, hello, full, io] = results as [TargetResult, TargetResult, TargetResult, TargetResult];

// The latency budget on a node with a core of its own: one API node pinned to core 1; k6 and the
// stack's servers (Redis, Kafka, ClickHouse) moved to core 0 for the step. Other tenants of a
// shared machine still float.
log('(c) pinned: one API node on core 1 (taskset), k6 and the stack on core 0');
const pinnedPort = await port();
const pinnedUrl = `http://127.0.0.1:${pinnedPort}`;
const pinnedNode = spawn('taskset', ['-c', '1', process.execPath, join(ROOT, 'services/api/main.ts')], {
  cwd: ROOT,
  env: {
    ...process.env,
    LOG_LEVEL: 'warn',
    PORT: pinnedPort,
    NODE_ID: 'bench-pinned',
    CONTROLS_NODE_COUNT: '1',
  },
  stdio: ['ignore', 'ignore', 'inherit'],
});
// The I/O floor (d) pinned the same way, measured at the same rate as (c)'s quarter.
const ioPinnedPort = await port();
const ioPinnedUrl = `http://127.0.0.1:${ioPinnedPort}`;
const ioPinned = spawn(
  'taskset',
  ['-c', '1', process.execPath, join(ROOT, 'loadtest/servers/express-io.ts')],
  {
    cwd: ROOT,
    env: { ...process.env, PORT: ioPinnedPort, WORKERS: '1' },
    stdio: ['ignore', 'ignore', 'inherit'],
  },
);
const pinned = await withServers([pinnedNode, ioPinned], [`${pinnedUrl}/readyz`, `${ioPinnedUrl}/`], () => {
  const stack = listeningPids(
    stackPorts([cfg.REDIS_URL, cfg.EXPLAIN_REDIS_URL, cfg.KAFKA_BROKERS.join(','), cfg.CLICKHOUSE_URL]),
  );
  const unshield = shieldCore(1, stack);
  try {
    return measurePinned();
  } finally {
    unshield();
  }
});
function measurePinned() {
  const env = { KIND: 'score', BASE_URLS: pinnedUrl, API_KEY: apiKey, SUBJECTS_FILE: subjectsFile };
  const onCore0 = ['taskset', '-c', '0'];
  runK6({ ...env, MODE: 'saturate', VUS: String(VUS), DURATION: WARMUP }, [], onCore0);
  const rounds = Array.from({ length: ROUNDS }, () =>
    runK6({ ...env, MODE: 'saturate', VUS: String(VUS) }, [pinnedNode.pid!], onCore0),
  );
  const saturation = median(rounds);
  const rate = Math.max(1, Math.round(saturation.rps * 0.25));
  const quarter = runK6({ ...env, MODE: 'rate', RATE: String(rate) }, [pinnedNode.pid!], onCore0);
  log(
    `(c) pinned: saturation ${saturation.rps.toFixed(0)} req/s; at ${rate} req/s p50 ${quarter.p50.toFixed(2)} ms, p99 ${quarter.p99.toFixed(2)} ms`,
  );
  const ioEnv = { ...env, BASE_URLS: ioPinnedUrl };
  runK6({ ...ioEnv, MODE: 'rate', RATE: String(rate), DURATION: WARMUP }, [], onCore0);
  const floor = runK6({ ...ioEnv, MODE: 'rate', RATE: String(rate) }, [], onCore0);
  log(`(d) pinned: at ${rate} req/s p50 ${floor.p50.toFixed(2)} ms, p99 ${floor.p99.toFixed(2)} ms`);
  return { saturation, rate, quarter, floor };
}

const pct = (x: number) => `${(x * 100).toFixed(0)} %`;
const rows = results.map((r) => {
  const cells = r.points.map((p) => `${p.p50.toFixed(2)} / ${p.p99.toFixed(2)}`);
  return `| ${r.name} | ${r.saturation.rps.toFixed(0)} | ${pct(r.saturation.rps / bare.saturation.rps)} | ${pct(
    r.saturation.rps / hello.saturation.rps,
  )} | ${cells.join(' | ')} | ${pct(Math.max(...r.points.map((p) => p.failed)))} |`;
});
const md = `# Benchmark (${new Date().toISOString()})

Same run, same machine (${process.env.HOSTNAME ?? 'local'}, 2 cores shared with the k6 load generator), 2 server processes per target,
${DURATION} per step, saturation with ${VUS} closed-loop VUs, latency at fixed fractions of each target's own saturation rate.

| target | saturation req/s | vs (a) | vs (b) | p50 / p99 ms at 25 % | at 50 % | at 75 % | worst error rate |
|---|---|---|---|---|---|---|---|
${rows.join('\n')}

(c) throughput against (b): **${full.saturation.rps / hello.saturation.rps >= 0.5 ? 'met' : 'NOT met'}**
(${pct(full.saturation.rps / hello.saturation.rps)}); (c) p99 at 50 % of its saturation < 10 ms: **${
  full.points[1]!.p99 < 10 ? 'met' : 'NOT met'
}** (${full.points[1]!.p99.toFixed(2)} ms).
`;

const cpuRatio = full.saturation.cpuUs! / hello.saturation.cpuUs!;
const floorRatio = io.saturation.cpuUs! / hello.saturation.cpuUs!;
const ownRatio = full.saturation.cpuUs! / io.saturation.cpuUs!;
const cpuMd = `
## Server CPU per request (from /proc/<pid>/stat, the median saturation round)

| target | CPU per request |
|---|---|
${results.map((r) => `| ${r.name} (its 2 server processes) | ${r.saturation.cpuUs!.toFixed(0)} µs |`).join('\n')}
| (c) one API node pinned to core 1 | ${pinned.saturation.cpuUs!.toFixed(0)} µs |

## Budget (same run)

| budget | measured | status |
|---|---|---|
| API-node CPU per scoring request <= 4x the Express hello's CPU per request | ${full.saturation.cpuUs!.toFixed(0)} µs against ${hello.saturation.cpuUs!.toFixed(0)} µs: ${cpuRatio.toFixed(2)}x | **${cpuRatio <= 4 ? 'met' : 'NOT met'}** |
| the floor under it: (d), the same I/O with the same clients and no scoring, against the Express hello | ${io.saturation.cpuUs!.toFixed(0)} µs against ${hello.saturation.cpuUs!.toFixed(0)} µs: ${floorRatio.toFixed(2)}x | ${floorRatio > 4 ? '4x of (b) is below the floor' : 'below 4x'} |
| restated: API-node CPU per scoring request <= 2x (d)'s, the service's own work at most doubling the floor | ${full.saturation.cpuUs!.toFixed(0)} µs against ${io.saturation.cpuUs!.toFixed(0)} µs: ${ownRatio.toFixed(2)}x | **${ownRatio <= 2 ? 'met' : 'NOT met'}** |
| p99 of the full path < 10 ms at a quarter of its saturation, the API node pinned to core 1 (k6 and the stack on core 0) | ${pinned.quarter.p99.toFixed(2)} ms at ${pinned.rate} req/s (saturation ${pinned.saturation.rps.toFixed(0)} req/s), p50 ${pinned.quarter.p50.toFixed(2)} ms | **${pinned.quarter.p99 < 10 ? 'met' : 'NOT met'}** |
| the floor under it: (d) pinned the same way, at the same rate | p99 ${pinned.floor.p99.toFixed(2)} ms, p50 ${pinned.floor.p50.toFixed(2)} ms | ${pinned.floor.p99 >= 10 ? '10 ms is below the floor' : 'below 10 ms'} |
| restated: p99 of the full path <= 2x (d)'s at the same rate, both pinned | ${(pinned.quarter.p99 / pinned.floor.p99).toFixed(2)}x | **${pinned.quarter.p99 <= 2 * pinned.floor.p99 ? 'met' : 'NOT met'}** |
| no errors but intended 429s at every step | 0 at every step (a step with any error stops the bench before it publishes) | met |
`;
// Kafka outage: the same two-node path at half of (c)'s saturation, first with its (private)
// Kafka up, then with it stopped so every node spills to its journal. Same run, same rate.
log('Kafka outage: p99 at half saturation with Kafka up, then down (private Kafka)');
const outageStack = await startPrivateStack('bench-outage', 'frs_bench_outage');
const outageUrls = [`http://127.0.0.1:${await port()}`, `http://127.0.0.1:${await port()}`];
const outage = await withServers(
  outageUrls.map((u, i) =>
    spawnNode('services/api/main.ts', {
      ...outageStack.env,
      PORT: u.split(':')[2]!,
      NODE_ID: `bench-outage-${i + 1}`,
      CONTROLS_NODE_COUNT: '2',
      AUDIT_JOURNAL_DIR: join(outageStack.dir, 'journal'),
    }),
  ),
  outageUrls.map((u) => `${u}/readyz`),
  async () => {
    const env = {
      KIND: 'score',
      BASE_URLS: outageUrls.join(','),
      API_KEY: apiKey,
      SUBJECTS_FILE: subjectsFile,
      MODE: 'rate',
      RATE: String(Math.round(full.saturation.rps * 0.5)),
    };
    runK6({ ...env, DURATION: WARMUP }); // warm-up: fresh nodes (and a fresh broker) still compile
    const up = runK6(env);
    await outageStack.kafka('stop');
    const down = runK6(env);
    await outageStack.kafka('start');
    return { up, down };
  },
);
await outageStack.down();
const outageMd = `
## During a Kafka outage (same run, ${Math.round(full.saturation.rps * 0.5)} req/s offered)

| Kafka | p50 ms | p99 ms | error rate |
|---|---|---|---|
| up | ${outage.up.p50.toFixed(2)} | ${outage.up.p99.toFixed(2)} | ${pct(outage.up.failed)} |
| down (records spill to the journal) | ${outage.down.p50.toFixed(2)} | ${outage.down.p99.toFixed(2)} | ${pct(outage.down.failed)} |

p99 during the outage is ${(outage.down.p99 / outage.up.p99).toFixed(2)}x the steady run on the same private stack, and
${(outage.down.p99 / full.points[1]!.p99).toFixed(2)}x (c) at 50 % above, on the shared stack (budget: within 1.5x). The private
stack runs a second broker and ClickHouse beside the shared ones, which inflates its own steady run.
`;

log('audit sink: sustained insert rate and score-to-row lag (loadtest/audit-bench.ts)');
const audit = spawnSync(
  process.execPath,
  [join(ROOT, 'loadtest', 'audit-bench.ts'), '--rps', '300', '--seconds', '15', '--backlog', '50000'],
  { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
);
const stages = audit.stdout
  .split('\n')
  .filter((l) => l.startsWith('{'))
  .map((l) => JSON.parse(l) as Record<string, number | string>);
const auditMd = stages.length
  ? `\n## Audit sink (same run, private Kafka and ClickHouse)\n\n${stages.map((st) => `- ${JSON.stringify(st)}`).join('\n')}\n`
  : '\n## Audit sink\n\nloadtest/audit-bench.ts failed; see its output above.\n';
writeFileSync(join(RESULTS, 'bench.md'), md + cpuMd + outageMd + auditMd);
const colors = ['#1f77b4', '#2ca02c', '#d62728', '#9467bd'];
const svg = latencyChartSvg(
  'Latency against offered load (same run)',
  results.map((r, i) => ({
    name: r.name,
    color: colors[i]!,
    points: r.points.map((p) => ({ x: p.offered, p50: p.p50, p99: p.p99 })),
  })),
);
writeFileSync(join(RESULTS, 'bench.png'), svgToPng(svg));
console.log(md + cpuMd + outageMd + auditMd);
log(`wrote ${join(RESULTS, 'bench.md')} and ${join(RESULTS, 'bench.png')}`);
