/**
 * `npm run bench:cluster`: where a score's time goes on the multi-node topology against the
 * single-node one, same run, same rate. Starts `npm start`, then `npm run start:cluster` (one at a
 * time: they share the API ports), and on each drives an open loop of RATE scores/s (default 300)
 * with an Idempotency-Key on every request (as the faults test does) for a warm-up and a measured
 * window. For the measured window it reports:
 *
 * - the caller's p50/p99 (first send to answer) and the API nodes' own p50/p99 for POST /v1/score
 *   (their request histogram: the time inside Node once a request is parsed);
 * - the audit path: from a score to its record durable (Kafka acknowledged, or the journal fsynced
 *   when Kafka is slower), which a 200 waits for;
 * - the API nodes' event-loop delay p99 (prom-client's monitor): a node waiting for a core;
 * - the Redis side per admission: scripts run, their mean execution time on the server, `WAIT`s
 *   sent and the MOVED/ASK redirections the servers answered (INFO commandstats and errorstats of
 *   every Redis server, before and after);
 * - the Redis round trip as a client sees it: a PING to each primary every 20 ms during the window;
 * - each process group's CPU per score (/proc) and how many of the machine's cores were busy.
 *
 * The machine sets the latency when the cores are busy all the window and the nodes' event loops
 * wait; the code does when the cores are free and the time sits in Redis round trips or scripts.
 * Refuses to publish a topology whose window had a non-200 answer.
 */
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { availableParallelism } from 'node:os';
import { connect } from 'node:net';
import { CLUSTER_API_PORTS as API_PORTS } from '../infra/harness/cluster-start.ts';
import { ScoreLoad, quantile } from '../infra/harness/score-load.ts';
import { sleep, waitFor } from '../infra/harness/wait.ts';
import { serviceRedisEnv } from '../infra/local/redis-users.ts';
import { createRedis, durableRedis } from '../shared/clients/redis.ts';
import { loadConfig } from '../shared/config.ts';
import { OrgStore } from '../shared/orgs/store.ts';

const ROOT = join(import.meta.dirname, '..');
const RATE = Number(process.env.RATE ?? 300);
const WARM_S = Number(process.env.WARM_S ?? 15);
const MEASURE_S = Number(process.env.MEASURE_S ?? 30);

type TopologyName = 'single' | 'cluster';
const REDIS_PORTS: Record<TopologyName, number[]> = {
  single: [6379],
  cluster: [7000, 7001, 7002, 7003, 7004, 7005],
};

/** Process groups by what their command line runs; the rest of the machine is "other". */
const GROUPS: [string, RegExp][] = [
  ['API nodes', /services\/api\/main\.ts/],
  ['audit sinks', /services\/audit-sink\/main\.ts/],
  ['refreshers', /services\/refresher\/main\.ts/],
  ['portal', /services\/portal\/main\.ts/],
  ['Redis', /redis-server/],
  ['ZooKeeper', /zookeeper/i],
  ['Kafka', /kafka/i],
  ['ClickHouse', /clickhouse-server/],
];

function processTicks(): Map<string, number> {
  const byGroup = new Map<string, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmd = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ');
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ticks = Number(f[11]) + Number(f[12]);
      const group =
        Number(entry) === process.pid
          ? 'load generator'
          : (GROUPS.find(([, re]) => re.test(cmd))?.[0] ?? 'other');
      byGroup.set(group, (byGroup.get(group) ?? 0) + ticks);
    } catch {
      // exited meanwhile
    }
  }
  return byGroup;
}

/** Busy and total jiffies of the whole machine (/proc/stat's first line). */
function machineTicks(): { busy: number; total: number } {
  const [, ...f] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/);
  const n = f.map(Number);
  const total = n.reduce((a, b) => a + b, 0);
  return { busy: total - n[3]! - n[4]!, total };
}

const CLK_TCK = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

function redisInfo(port: number): Map<string, number> {
  const out = new Map<string, number>();
  const text = execFileSync('redis-cli', ['-p', String(port), 'info', 'all'], { encoding: 'utf8' });
  for (const line of text.split(/\r?\n/)) {
    let m = /^cmdstat_(\w+):calls=(\d+),usec=(\d+)/.exec(line);
    if (m) {
      out.set(`${m[1]}.calls`, Number(m[2]));
      out.set(`${m[1]}.usec`, Number(m[3]));
      continue;
    }
    m = /^errorstat_(\w+):count=(\d+)/.exec(line);
    if (m) out.set(`err.${m[1]}`, Number(m[2]));
  }
  return out;
}

function redisTotals(ports: number[]): Map<string, number> {
  const sum = new Map<string, number>();
  for (const p of ports) for (const [k, v] of redisInfo(p)) sum.set(k, (sum.get(k) ?? 0) + v);
  return sum;
}

/** Bucket counts of one histogram of the API nodes, summed over them, for series whose labels match. */
async function buckets(metric: string, match: (labels: string) => boolean): Promise<Map<number, number>> {
  const sum = new Map<number, number>();
  const re = new RegExp(`^${metric}_bucket\\{([^}]*)\\} (\\d+)`, 'gm');
  for (const port of API_PORTS) {
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    for (const m of text.matchAll(re)) {
      const labels = m[1]!;
      if (!match(labels)) continue;
      const le = /le="([^"]+)"/.exec(labels)![1]!;
      const bound = le === '+Inf' ? Infinity : Number(le);
      sum.set(bound, (sum.get(bound) ?? 0) + Number(m[2]));
    }
  }
  return sum;
}
/** POST /v1/score answered 200: the time inside the node. */
const scoreBuckets = () =>
  buckets(
    'frs_http_request_duration_seconds',
    (l) => l.includes('route="/v1/score"') && l.includes('status="200"'),
  );
/** From a score to its audit record durable (Kafka acknowledged or journal fsynced): a 200 waits for it. */
const durableBuckets = () => buckets('frs_audit_durable_seconds', () => true);

/** The quantile of a cumulative histogram difference, interpolated inside its bucket (ms). */
function histogramQuantile(before: Map<number, number>, after: Map<number, number>, p: number): number {
  const bounds = [...after.keys()].sort((a, b) => a - b);
  const count = (b: number) => (after.get(b) ?? 0) - (before.get(b) ?? 0);
  const total = count(Infinity);
  if (total <= 0) return NaN;
  let prevBound = 0;
  let prevCount = 0;
  for (const b of bounds) {
    const c = count(b);
    if (c >= p * total) {
      if (b === Infinity) return prevBound * 1000;
      return (prevBound + ((p * total - prevCount) / Math.max(1, c - prevCount)) * (b - prevBound)) * 1000;
    }
    prevBound = b;
    prevCount = c;
  }
  return NaN;
}

async function eventLoopP99(): Promise<number[]> {
  return Promise.all(
    API_PORTS.map(async (port) => {
      const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      return Number(/^nodejs_eventloop_lag_p99_seconds (\S+)/m.exec(text)?.[1] ?? NaN) * 1000;
    }),
  );
}

/** PINGs one Redis server every 20 ms until `stop`; the round trips in ms. */
async function pingLoop(port: number, stop: { done: boolean }): Promise<number[]> {
  const s = connect(port, '127.0.0.1');
  await once(s, 'connect');
  const times: number[] = [];
  while (!stop.done) {
    const t0 = performance.now();
    s.write('PING\r\n');
    await once(s, 'data');
    times.push(performance.now() - t0);
    await sleep(20);
  }
  s.destroy();
  return times;
}

interface Result {
  topology: TopologyName;
  ok: number;
  bad: number;
  client: [number, number];
  server: [number, number];
  durable: [number, number];
  loopP99: number[];
  perScore: Map<string, number>;
  coresBusy: number;
  scripts: number;
  scriptUs: number;
  waits: number;
  redirections: number;
  ping: [number, number];
}

/** Both API nodes of the topology `npm start` (or start:cluster) brought up answer /readyz. */
async function nodesReady(): Promise<void> {
  await waitFor(
    'both API nodes ready',
    async () => {
      const ready = await Promise.all(
        API_PORTS.map((p) =>
          fetch(`http://127.0.0.1:${p}/readyz`).then(
            (r) => r.ok,
            () => false,
          ),
        ),
      );
      return ready.every(Boolean) || undefined;
    },
    240_000,
    500,
  );
}

/** An organisation the rate RATE does not reach, made as the admin CLI's Redis user; its key, accepted on both nodes. */
async function benchKey(topology: TopologyName): Promise<string> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  if (topology === 'cluster')
    for (const line of execFileSync('bash', ['infra/local/redis-cluster.sh', 'env'], {
      cwd: ROOT,
      encoding: 'utf8',
    }).split('\n')) {
      const m = /^([A-Z0-9_]+)=(.*)$/.exec(line.trim());
      if (m) env[m[1]!] = m[2]!;
    }
  const cfg = loadConfig({ ...env, ...serviceRedisEnv('admin', env) });
  const redis = createRedis(durableRedis(cfg), { connectionName: 'frs-bench-cluster' });
  const store = new OrgStore(redis);
  const org = await store.createOrg({
    name: `bench-${topology}`,
    tier: 'bureau',
    rateRps: 100_000,
    credits: 1e9,
  });
  const apiKey = (await store.createKey(org.org_id)).api_key;
  redis.disconnect();
  await waitFor(
    'the new key accepted on both nodes',
    async () => {
      const codes = await Promise.all(
        API_PORTS.map((p) =>
          fetch(`http://127.0.0.1:${p}/v1/score`, {
            method: 'POST',
            headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
            body: JSON.stringify({ subject: { ip_address: '81.2.69.142' } }),
          }).then((r) => r.status),
        ),
      );
      return codes.every((c) => c === 200) || undefined;
    },
    60_000,
    500,
  );
  return apiKey;
}

/** What the window's edges read: score and durability histograms, Redis, process and machine ticks. */
async function edge(ports: number[]) {
  return {
    buckets: await scoreBuckets(),
    durable: await durableBuckets(),
    redis: redisTotals(ports),
    procs: processTicks(),
    machine: machineTicks(),
  };
}
type Edge = Awaited<ReturnType<typeof edge>>;

/** MEASURE_S seconds of the load, read at both edges, with Redis pinged meanwhile. */
async function measuredWindow(topology: TopologyName, load: ScoreLoad) {
  load.phase = 'measured';
  const ports = REDIS_PORTS[topology];
  const before = await edge(ports);
  await eventLoopP99(); // resets the monitor: the next read covers the window
  const stop = { done: false };
  const pings = ports.slice(0, topology === 'cluster' ? 3 : 1).map((p) => pingLoop(p, stop));
  await sleep(MEASURE_S * 1000);
  stop.done = true;
  load.phase = 'after';
  const after = await edge(ports);
  const loop = await eventLoopP99();
  const pingMs = (await Promise.all(pings)).flat();
  return { before, after, loop, pingMs };
}

function resultOf(
  topology: TopologyName,
  load: ScoreLoad,
  w: { before: Edge; after: Edge; loop: number[]; pingMs: number[] },
): Result {
  const { before, after } = w;
  const measured = load.requests.filter((r) => r.phase === 'measured');
  const ok = measured.filter((r) => r.status === 200);
  const delta = (k: string) => (after.redis.get(k) ?? 0) - (before.redis.get(k) ?? 0);
  const scripts = delta('evalsha.calls') + delta('eval.calls');
  const perScore = new Map<string, number>();
  for (const [group, t] of after.procs)
    perScore.set(group, (((t - (before.procs.get(group) ?? 0)) / CLK_TCK) * 1e6) / ok.length);
  const ms = ok.map((r) => r.ms);
  const between = (b0: typeof before.buckets, b1: typeof after.buckets) =>
    [histogramQuantile(b0, b1, 0.5), histogramQuantile(b0, b1, 0.99)] as [number, number];
  return {
    topology,
    ok: ok.length,
    bad: measured.length - ok.length,
    client: [quantile(ms, 0.5), quantile(ms, 0.99)],
    server: between(before.buckets, after.buckets),
    durable: between(before.durable, after.durable),
    loopP99: w.loop,
    perScore,
    coresBusy:
      ((after.machine.busy - before.machine.busy) / (after.machine.total - before.machine.total)) *
      availableParallelism(),
    scripts,
    scriptUs: (delta('evalsha.usec') + delta('eval.usec')) / Math.max(1, scripts),
    waits: delta('wait.calls'),
    redirections: [...after.redis.keys()]
      .filter((k) => k === 'err.MOVED' || k === 'err.ASK')
      .reduce((a, k) => a + delta(k), 0),
    ping: [quantile(w.pingMs, 0.5), quantile(w.pingMs, 0.99)],
  };
}

async function measure(topology: TopologyName): Promise<Result> {
  const args = ['infra/local/start.ts', ...(topology === 'cluster' ? ['--cluster'] : [])];
  console.log(`[bench:cluster] ${topology}: npm ${topology === 'cluster' ? 'run start:cluster' : 'start'}`);
  const start = spawn(process.execPath, args, { cwd: ROOT, detached: true, stdio: 'ignore' });
  const exited = once(start, 'exit');
  try {
    await nodesReady();
    const apiKey = await benchKey(topology);
    const load = new ScoreLoad({
      ports: API_PORTS,
      apiKey,
      rps: RATE,
      runId: `bench-${topology}-${Date.now()}`,
    });
    load.start();
    await sleep(WARM_S * 1000);
    const window = await measuredWindow(topology, load);
    load.stop();
    await waitFor('the last answers', async () => load.pending() === 0 || undefined, 120_000);
    load.close();
    return resultOf(topology, load, window);
  } finally {
    if (start.exitCode === null) process.kill(-start.pid!, 'SIGINT');
    await Promise.race([exited, sleep(120_000)]);
  }
}

const results: Result[] = [];
for (const t of ['single', 'cluster'] as const) results.push(await measure(t));

const f = (x: number, d = 1) => (Number.isFinite(x) ? x.toFixed(d) : '-');
const groups = [...new Set(results.flatMap((r) => [...r.perScore.keys()]))].sort();
console.log(`
Scores at ${RATE}/s, open loop, ${MEASURE_S} s measured after ${WARM_S} s (${new Date().toISOString()}):

| | single node | cluster | cluster / single |
|---|---|---|---|
| 200s in the window (other answers) | ${results.map((r) => `${r.ok} (${r.bad})`).join(' | ')} | |
| caller p50 / p99 ms | ${results.map((r) => `${f(r.client[0])} / ${f(r.client[1])}`).join(' | ')} | ${f(results[1]!.client[0] / results[0]!.client[0], 2)}x / ${f(results[1]!.client[1] / results[0]!.client[1], 2)}x |
| API node p50 / p99 ms (its histogram) | ${results.map((r) => `${f(r.server[0])} / ${f(r.server[1])}`).join(' | ')} | |
| audit record durable p50 / p99 ms (a 200 waits for it) | ${results.map((r) => `${f(r.durable[0])} / ${f(r.durable[1])}`).join(' | ')} | |
| API event-loop delay p99 ms (each node) | ${results.map((r) => r.loopP99.map((x) => f(x)).join(', ')).join(' | ')} | |
| Redis PING round trip p50 / p99 ms | ${results.map((r) => `${f(r.ping[0], 2)} / ${f(r.ping[1], 2)}`).join(' | ')} | |
| controls scripts per score, mean µs on the server | ${results.map((r) => `${f(r.scripts / r.ok, 2)}, ${f(r.scriptUs)}`).join(' | ')} | |
| WAITs per score | ${results.map((r) => f(r.waits / r.ok, 2)).join(' | ')} | |
| MOVED/ASK redirections | ${results.map((r) => r.redirections).join(' | ')} | |
| cores busy (of ${availableParallelism()}) | ${results.map((r) => f(r.coresBusy, 2)).join(' | ')} | |
${groups.map((g) => `| CPU µs per score: ${g} | ${results.map((r) => f(r.perScore.get(g) ?? 0, 0)).join(' | ')} | |`).join('\n')}
| CPU µs per score: total | ${results
  .map((r) =>
    f(
      [...r.perScore.values()].reduce((a, b) => a + b, 0),
      0,
    ),
  )
  .join(' | ')} | |
`);
const refused = results.filter((r) => r.bad > 0);
if (refused.length) {
  console.error(
    `[bench:cluster] not published: answers other than 200 on ${refused.map((r) => r.topology).join(', ')}`,
  );
  process.exit(1);
}
