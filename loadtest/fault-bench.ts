/**
 * `npm run bench:faults`: steady scoring load on two API nodes while the servers behind them are
 * SIGKILLed and restarted with the project's own scripts, then the audit count.
 *
 * Phases (FAULT_PHASE_S seconds each, default 10, at FAULT_RPS scores/s, default 300, open loop):
 *   steady · Kafka down (SIGKILL) · Kafka back (infra/local/kafka.sh start) · ClickHouse down ·
 *   ClickHouse back · Redis down · Redis back · API node 1 down (SIGKILL; out of rotation) ·
 *   node 1 back (restarted with the same NODE_ID; in rotation once /readyz says so, like a load
 *   balancer), whose own first seconds are also reported alone ("fresh node").
 * Prints per phase the statuses and client-side p50/p99 with the ratio to steady, then the audit
 * count once the journals are drained and the sink has caught up: every score answered with 200
 * must be in ClickHouse (lost) exactly once (doubled: rows FINAL still counts twice).
 * Runs against the stack of REDIS_URL / KAFKA_BROKERS / CLICKHOUSE_URL (a private one per
 * checkout: `source` your slot's env first) and starts its own audit sink and API nodes.
 */
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createClickHouse } from '../shared/clients/clickhouse.ts';
import { createRedis } from '../shared/clients/redis.ts';
import { loadConfig } from '../shared/config.ts';
import { OrgStore } from '../shared/orgs/store.ts';
import { sleep } from '../test/helpers/wait.ts';
import { scoreTopicLag } from '../test/helpers/kafka-records.ts';
import { freePort } from '../test/helpers/processes.ts';
import { publishSnapshots } from '../test/helpers/snapshots.ts';

const ROOT = join(import.meta.dirname, '..');
const RESULTS = join(ROOT, 'loadtest', 'results');
const PHASE_S = Number(process.env.FAULT_PHASE_S ?? 10);
const RPS = Number(process.env.FAULT_RPS ?? 300);
const STACK_DIR = process.env.FRS_STACK_DIR ?? join(ROOT, '.stack');
const JOURNALS = join(STACK_DIR, 'fault-bench-journal');

const log = (m: string) => console.error(`[faults] ${new Date().toISOString().slice(11, 19)} ${m}`);

interface Result {
  phase: string;
  node: number;
  /** HTTP status; 0 for a connection error (`error` says which). */
  status: number;
  ms: number;
  scoreId?: string;
  error?: string;
}

const cfg = loadConfig();
execFileSync('bash', [join(ROOT, 'infra/local/stack.sh'), 'up'], { stdio: 'inherit' });
// API nodes build no snapshot: publish the ones Redis lacks first, as a deployment does.
await publishSnapshots();

const redis = createRedis(cfg.REDIS_URL, { connectionName: 'frs-fault-bench' });
const org = await new OrgStore(redis).createOrg({
  name: 'fault-bench',
  tier: 'bureau',
  rateRps: 1_000_000,
  credits: 1_000_000_000,
});
const apiKey = (await new OrgStore(redis).createKey(org.org_id)).api_key;
redis.disconnect();

function spawnService(entry: string, env: Record<string, string>): ChildProcess {
  const p = spawn(process.execPath, [join(ROOT, entry)], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  // Only the warnings worth seeing once: the services log every outage.
  p.stderr!.on('data', () => undefined);
  return p;
}

/** The servers' own scripts restart them (asynchronously: the load keeps flowing meanwhile). */
async function script(server: 'kafka' | 'clickhouse' | 'redis', cmd: 'start'): Promise<void> {
  await promisify(execFile)('bash', [join(ROOT, 'infra/local', `${server}.sh`), cmd]);
}
/** A crash: SIGKILL to the pid the script recorded. */
async function crash(server: 'kafka' | 'clickhouse' | 'redis'): Promise<void> {
  const pidfile = join(STACK_DIR, server, 'pid');
  const pid = Number(readFileSync(pidfile, 'utf8').trim());
  process.kill(pid, 'SIGKILL');
  for (let i = 0; i < 100; i++) {
    try {
      process.kill(pid, 0);
      await sleep(50);
    } catch {
      break;
    }
  }
  rmSync(pidfile, { force: true });
}

const ports = [await freePort(), await freePort()];
const nodeEnv = (i: number) => ({
  PORT: String(ports[i]),
  NODE_ID: `fault-bench-${i + 1}`,
  CONTROLS_NODE_COUNT: '2',
  AUDIT_JOURNAL_DIR: JOURNALS,
});
const nodes: (ChildProcess | undefined)[] = [];
/** Nodes a load balancer would send to: those whose /readyz answered 200. */
const inRotation = new Set<number>();
/** When each node (re)entered rotation, for the "fresh node" figures. */
const readySince: number[] = [0, 0];

async function ready(i: number): Promise<boolean> {
  return fetch(`http://127.0.0.1:${ports[i]}/readyz`).then(
    (r) => r.ok,
    () => false,
  );
}
async function startNode(i: number): Promise<void> {
  nodes[i] = spawnService('services/api/main.ts', nodeEnv(i));
  for (let t = 0; t < 1_200 && !(await ready(i)); t++) await sleep(100);
  if (!(await ready(i))) throw new Error(`api node ${i + 1} not ready`);
  readySince[i] = performance.now();
  inRotation.add(i);
}

rmSync(JOURNALS, { recursive: true, force: true });
const sink = spawnService('services/audit-sink/main.ts', {});
await Promise.all([startNode(0), startNode(1)]);
log(`2 API nodes ready on ports ${ports.join(', ')}; ${RPS} scores/s, ${PHASE_S} s per phase`);

const agent = new Agent({ keepAlive: true, maxSockets: 256 });
const results: Result[] = [];
let phase = 'warm-up';
let n = 0;
function one(): void {
  const rotation = [...inRotation];
  if (rotation.length === 0) {
    results.push({ phase, node: -1, status: -1, ms: 0 });
    return;
  }
  const i = n++;
  const node = rotation[i % rotation.length]!;
  const body = JSON.stringify({
    subject: { phone_number: `+4479111${String(i % 100_000).padStart(5, '0')}`, ip_address: '81.2.69.142' },
    client_reference: `fault-${i}`,
  });
  const at = phase;
  const t0 = performance.now();
  const req = request(
    {
      host: '127.0.0.1',
      port: ports[node],
      path: '/v1/score',
      method: 'POST',
      agent,
      headers: {
        authorization: `Bearer ${apiKey}`,
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
      },
    },
    (res) => {
      let data = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (data += d));
      res.on('end', () => {
        const r: Result = { phase: at, node, status: res.statusCode ?? 0, ms: performance.now() - t0 };
        if (r.status === 200) r.scoreId = (JSON.parse(data) as { score_id: string }).score_id;
        if (node === 0 && t0 - readySince[0]! < PHASE_S * 1000 && at.startsWith('API node 1 back'))
          results.push({ ...r, phase: 'fresh node 1, its first seconds' });
        results.push(r);
      });
    },
  );
  req.on('error', (err: NodeJS.ErrnoException) =>
    results.push({ phase: at, node, status: 0, ms: performance.now() - t0, error: err.code ?? err.message }),
  );
  req.end(body);
}
const ticker = setInterval(() => {
  // Up to 10 requests per 10 ms tick keeps the rate exact despite timer jitter.
  const due = Math.round((RPS * 10) / 1000);
  for (let k = 0; k < due; k++) one();
}, 10);

async function during(name: string, ms: number): Promise<void> {
  phase = name;
  log(name);
  await sleep(ms);
}
async function restart(name: string, fn: () => void | Promise<void>): Promise<void> {
  phase = `${name} (restarting)`;
  await fn();
}

await during('warm-up (not counted)', 3_000);
await during('steady', PHASE_S * 1000);
const steps: [string, 'kafka' | 'clickhouse' | 'redis'][] = [
  ['Kafka', 'kafka'],
  ['ClickHouse', 'clickhouse'],
  ['Redis', 'redis'],
];
for (const [label, server] of steps) {
  await crash(server);
  await during(`${label} down (SIGKILL)`, PHASE_S * 1000);
  await restart(`${label} down`, () => script(server, 'start'));
  await during(`${label} back`, PHASE_S * 1000);
}
nodes[0]!.kill('SIGKILL');
inRotation.delete(0);
await during('API node 1 down (SIGKILL)', PHASE_S * 1000);
phase = 'API node 1 down (restarting)';
await startNode(0);
await during('API node 1 back (same NODE_ID)', PHASE_S * 1000);
clearInterval(ticker);
phase = 'done';
await sleep(2_000);

// The audit count: journals drained, the sink caught up, then every 200 looked up.
const segments = () =>
  existsSync(JOURNALS)
    ? readdirSync(JOURNALS, { recursive: true }).filter((f) => String(f).includes('seg-')).length
    : 0;
for (let t = 0; t < 600 && segments() > 0; t++) await sleep(500);
for (let t = 0; t < 600; t++) {
  const lag = await scoreTopicLag(cfg.KAFKA_BROKERS, cfg.AUDIT_SINK_GROUP).catch(() => -1);
  if (lag === 0) break;
  await sleep(500);
}
const ch = createClickHouse(cfg.CLICKHOUSE_URL);
const query = async <T>(q: string) =>
  (await (await ch.query({ query: q, format: 'JSONEachRow' })).json<T>()) as T[];
const db = cfg.CLICKHOUSE_DATABASE;
const stored = new Set(
  (
    await query<{ score_id: string }>(
      `SELECT score_id FROM ${db}.scores FINAL WHERE org_id = '${org.org_id}'`,
    )
  ).map((r) => r.score_id),
);
const [counts] = await query<{ final: string; distinct: string; raw: string }>(
  `SELECT (SELECT count() FROM ${db}.scores FINAL WHERE org_id = '${org.org_id}') AS final,
          (SELECT uniqExact(score_id) FROM ${db}.scores WHERE org_id = '${org.org_id}') AS distinct,
          (SELECT count() FROM ${db}.scores WHERE org_id = '${org.org_id}') AS raw`,
);
await ch.close();
for (const p of [...nodes, sink]) p?.kill('SIGTERM');

const answered = results.filter((r) => r.status === 200 && r.phase !== 'fresh node 1, its first seconds');
const lost = answered.filter((r) => !stored.has(r.scoreId!)).length;
const doubled = Number(counts!.final) - Number(counts!.distinct);
const q = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(p * s.length))]! : NaN;
};
const phases = [...new Set(results.map((r) => r.phase))].filter(
  (p) => !p.startsWith('warm-up') && p !== 'done',
);
const steadyP99 = q(
  results.filter((r) => r.phase === 'steady' && r.status === 200).map((r) => r.ms),
  0.99,
);
const rows = phases.map((p) => {
  const rs = results.filter((r) => r.phase === p);
  const ok = rs.filter((r) => r.status === 200).map((r) => r.ms);
  const label = (r: Result) =>
    r.status === 0 ? (r.error ?? 'error') : r.status === -1 ? 'no node' : String(r.status);
  const statuses = [...new Set(rs.map(label))]
    .sort()
    .map((s) => `${s}: ${rs.filter((r) => label(r) === s).length}`)
    .join(', ');
  const p99 = q(ok, 0.99);
  return `| ${p} | ${statuses} | ${q(ok, 0.5).toFixed(1)} | ${p99.toFixed(1)} | ${(p99 / steadyP99).toFixed(2)}x |`;
});
const md = `# Fault bench (${new Date().toISOString()})

${RPS} scores/s open loop over the API nodes in rotation, ${PHASE_S} s per phase; servers SIGKILLed
and restarted with infra/local/*.sh; latency seen by the client (this process, on the same machine).

| phase | statuses | p50 ms | p99 ms | p99 vs steady |
|---|---|---|---|---|
${rows.join('\n')}

Audit: ${answered.length} scores answered with 200; **lost ${lost}** (not in ClickHouse),
**doubled ${doubled}** (counted twice by \`FINAL\`); ${Number(counts!.raw) - Number(counts!.distinct)} re-delivered
rows not yet merged (collapsed by \`FINAL\`); ${stored.size - answered.length} stored scores whose answer never arrived
(cut off by a kill).
`;
mkdirSync(RESULTS, { recursive: true });
writeFileSync(join(RESULTS, 'faults.md'), md);
console.log(md);
process.exit(lost === 0 && doubled === 0 ? 0 : 1);
