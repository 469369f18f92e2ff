/**
 * `npm run bench:faults`: steady scoring load on two API nodes while the servers behind them are
 * SIGKILLed and restarted with the project's own scripts, then the audit count.
 *
 * Phases (FAULT_PHASE_S seconds each, default 10, at FAULT_RPS scores/s, default 300, open loop):
 *   steady · Kafka down (SIGKILL) · Kafka back (infra/local/kafka.sh start) · ClickHouse down ·
 *   ClickHouse back · Redis down · Redis back · API node 1 down (SIGKILL; out of rotation) ·
 *   node 1 back (restarted with the same NODE_ID; in rotation once /readyz says so, like a load
 *   balancer), whose own first seconds are also reported alone ("fresh node") · steady again
 *   (nothing down: how much steady p99 moves by itself within the run).
 * Prints per phase the statuses and client-side p50/p99 with the ratio to steady (marked within
 * 2x or not), where the CPU went, every connection error with the socket it happened on, then
 * the audit count once the journals are drained and the sink has caught up: every score answered
 * with 200 must be in ClickHouse (lost) exactly once (doubled: rows FINAL still counts twice).
 * The client behaves like a production one (see `agent` and `retry`). Exits 1, "not publishable",
 * on any connection error no SIGKILL explains, any status but 200, a lost or a doubled score.
 * Runs against the stack of REDIS_URL / KAFKA_BROKERS / CLICKHOUSE_URL (a private one per
 * checkout: `source` your slot's env first) and starts its own audit sink and API nodes.
 */
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import {
  createWriteStream,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { Agent, request } from 'node:http';
import type { Socket } from 'node:net';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createClickHouse } from '../shared/clients/clickhouse.ts';
import { createRedis } from '../shared/clients/redis.ts';
import { loadConfig } from '../shared/config.ts';
import { OrgStore } from '../shared/orgs/store.ts';
import { sleep } from '../infra/harness/wait.ts';
import { scoreTopicLag } from '../infra/harness/kafka-records.ts';
import { freePort } from '../infra/harness/processes.ts';
import { publishSnapshots } from '../infra/harness/snapshots.ts';
import { quantile } from '../infra/harness/score-load.ts';
import { PhaseCpu } from './phase-cpu.ts';
import { runtimeFlagsFor } from '../services/api/runtime-flags.ts';

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
  /** For a connection error: the socket it happened on. */
  socket?: { reused: boolean; ageMs: number; idleMs: number; served: number };
  /** For a connection error: sent before its node was SIGKILLed, failed after (cut off by the kill). */
  cutByKill?: boolean;
}

/** What the client knows of each of its sockets, to tell a stale keep-alive socket from a new one. */
interface SocketInfo {
  born: number;
  served: number;
  lastEnd: number;
}
const sockets = new WeakMap<Socket, SocketInfo>();

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

mkdirSync(RESULTS, { recursive: true });
function spawnService(entry: string, env: Record<string, string>, logName: string): ChildProcess {
  const p = spawn(process.execPath, [...runtimeFlagsFor(entry), join(ROOT, entry)], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // The services' warnings (every outage, every client error) go to a file per service.
  const out = createWriteStream(join(RESULTS, `faults-${logName}.log`), { flags: 'a' });
  p.stdout!.pipe(out);
  p.stderr!.pipe(out);
  p.on('exit', (code, signal) => log(`${logName} (pid ${p.pid}) exited: ${signal ?? code}`));
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
/** When each node was SIGKILLed (never: Infinity). */
const killedAt: number[] = [Infinity, Infinity];

async function ready(i: number): Promise<boolean> {
  return fetch(`http://127.0.0.1:${ports[i]}/readyz`).then(
    (r) => r.ok,
    () => false,
  );
}
async function startNode(i: number): Promise<void> {
  nodes[i] = spawnService('services/api/main.ts', nodeEnv(i), `node-${i + 1}`);
  for (let t = 0; t < 1_200 && !(await ready(i)); t++) await sleep(100);
  if (!(await ready(i))) throw new Error(`api node ${i + 1} not ready`);
  readySince[i] = performance.now();
  inRotation.add(i);
}

rmSync(JOURNALS, { recursive: true, force: true });
for (const f of readdirSync(RESULTS)) if (/^faults-.*\.log$/.test(f)) rmSync(join(RESULTS, f));
const sink = spawnService('services/audit-sink/main.ts', {}, 'sink');
await Promise.all([startNode(0), startNode(1)]);
log(`2 API nodes ready on ports ${ports.join(', ')}; ${RPS} scores/s, ${PHASE_S} s per phase`);

/**
 * The client's connection pool, configured as a production client would be: an idle socket is
 * closed by the client before the server's keep-alive timeout (the node announces
 * `Keep-Alive: timeout=65`), like a load balancer's 60 s idle timeout or undici's keep-alive
 * handling. Node's Agent without `timeout` ignores that announcement and keeps idle sockets
 * forever: the server then closes them at 66 s (65 s plus Node's 1 s `keepAliveTimeoutBuffer`),
 * and a request written onto one in that instant
 * (likeliest when the client's event loop runs late, as on this loaded machine) is reset.
 */
const agent = new Agent({ keepAlive: true, maxSockets: 256, timeout: 60_000 });
const results: Result[] = [];
let phase = 'warm-up';

const pidOf = (server: string) => {
  try {
    return Number(readFileSync(join(STACK_DIR, server, 'pid'), 'utf8').trim());
  } catch {
    return undefined;
  }
};
/** Where the cores went in each phase: each of the bench's processes and the whole machine. */
const cpu = new PhaseCpu(
  () => ({
    'load generator': process.pid,
    'API node 1': nodes[0]?.pid,
    'API node 2': nodes[1]?.pid,
    sink: sink.pid,
    kafka: pidOf('kafka'),
    clickhouse: pidOf('clickhouse'),
    redis: pidOf('redis'),
  }),
  phase,
);
function enterPhase(name: string): void {
  cpu.enter(name);
  phase = name;
}
let n = 0;

interface Answer {
  status: number;
  data: string;
  headers: Record<string, string | string[] | undefined>;
  error?: string;
  socket?: Result['socket'];
}
/** One POST /v1/score on the shared agent; the socket it used is recorded for connection errors. */
function post(node: number, body: string, key: string, done: (a: Answer) => void): void {
  let socketSeen: Result['socket'];
  let onSocket: Socket | undefined;
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
        'idempotency-key': key,
      },
    },
    (res) => {
      let data = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (data += d));
      res.on('end', () => {
        // By now the agent may have detached the socket from the response: the closure keeps it.
        const s = onSocket && sockets.get(onSocket);
        if (s) {
          s.served++;
          s.lastEnd = performance.now();
        }
        done({ status: res.statusCode ?? 0, data, headers: res.headers });
      });
    },
  );
  req.on('socket', (socket: Socket) => {
    onSocket = socket;
    const now = performance.now();
    let s = sockets.get(socket);
    if (!s) sockets.set(socket, (s = { born: now, served: 0, lastEnd: now }));
    socketSeen = { reused: req.reusedSocket, ageMs: now - s.born, idleMs: now - s.lastEnd, served: s.served };
  });
  req.on('error', (err: NodeJS.ErrnoException) =>
    done({
      status: 0,
      data: '',
      headers: {},
      error: err.code ?? err.message,
      ...(socketSeen ? { socket: socketSeen } : {}),
    }),
  );
  req.end(body);
}

/** A request cut off by a node's crash, sent again as a production client does (see `retry`). */
interface Retried {
  phase: string;
  status: number;
  attempts: number;
  ms: number;
  scoreId?: string;
}
const retried: Retried[] = [];
/**
 * What a well-configured client does when a connection breaks before any answer: the request
 * carries an Idempotency-Key, so it is safe to send again, to another node in rotation. A 409
 * `E_IDEMPOTENCY_IN_PROGRESS` (the crashed node had claimed the key) is retried after its
 * Retry-After, for at most a minute.
 */
function retry(phaseAt: string, failed: number, body: string, key: string, t0: number, attempts = 1): void {
  const rotation = [...inRotation].filter((x) => x !== failed);
  const node = rotation[0] ?? failed;
  post(node, body, key, (a) => {
    const again = (ms: number) =>
      performance.now() - t0 < 60_000
        ? setTimeout(() => retry(phaseAt, failed, body, key, t0, attempts + 1), ms)
        : retried.push({ phase: phaseAt, status: a.status, attempts, ms: performance.now() - t0 });
    if (a.status === 409 || a.status === 0 || a.status >= 500)
      return void again(1000 * Number(a.headers['retry-after'] ?? 1));
    const r: Retried = { phase: phaseAt, status: a.status, attempts, ms: performance.now() - t0 };
    if (a.status === 200) r.scoreId = (JSON.parse(a.data) as { score_id: string }).score_id;
    retried.push(r);
  });
}

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
  const key = `fault-${i}`;
  const at = phase;
  const t0 = performance.now();
  post(node, body, key, (a) => {
    const r: Result = { phase: at, node, status: a.status, ms: performance.now() - t0 };
    if (a.error) {
      r.error = a.error;
      if (a.socket) r.socket = a.socket;
      r.cutByKill = t0 < killedAt[node]! && killedAt[node]! <= performance.now();
      // Sent again, as a client would; still reported, and the bench refuses to publish figures
      // with a connection error that no crash explains.
      retry(at, node, body, key, t0);
    }
    if (r.status === 200) r.scoreId = (JSON.parse(a.data) as { score_id: string }).score_id;
    if (node === 0 && t0 - readySince[0]! < PHASE_S * 1000 && at.startsWith('API node 1 back'))
      results.push({ ...r, phase: 'fresh node 1, its first seconds' });
    results.push(r);
  });
}
// Open loop: each tick sends every request due since the start, so a tick that fires late (this
// process starved of CPU) sends the ones that fell due meanwhile instead of skipping them.
const loadStart = performance.now();
let sent = 0;
const ticker = setInterval(() => {
  const due = Math.floor(((performance.now() - loadStart) * RPS) / 1000) - sent;
  for (let k = 0; k < due; k++) one();
  sent += due;
}, 10);

/** `fault` runs once the phase has begun: the previous phase's CPU is read while all still run. */
async function during(name: string, ms: number, fault?: () => Promise<void>): Promise<void> {
  enterPhase(name);
  log(name);
  const started = performance.now();
  await fault?.();
  await sleep(Math.max(0, ms - (performance.now() - started)));
}
async function restart(name: string, fn: () => void | Promise<void>): Promise<void> {
  enterPhase(`${name} (restarting)`);
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
  await during(`${label} down (SIGKILL)`, PHASE_S * 1000, () => crash(server));
  await restart(`${label} down`, () => script(server, 'start'));
  await during(`${label} back`, PHASE_S * 1000);
}
await during('API node 1 down (SIGKILL)', PHASE_S * 1000, async () => {
  killedAt[0] = performance.now();
  nodes[0]!.kill('SIGKILL');
  inRotation.delete(0);
});
enterPhase('API node 1 down (restarting)');
await startNode(0);
await during('API node 1 back (same NODE_ID)', PHASE_S * 1000);
// Nothing down: how far steady p99 itself moves within one run on this machine.
await during('steady again (nothing down)', PHASE_S * 1000);
clearInterval(ticker);
enterPhase('done');
await sleep(2_000);
// Requests cut off by the kill are still being sent again (a claimed key answers 409 for 30 s).
const connectionErrors = () =>
  results.filter((r) => r.status === 0 && !r.phase.startsWith('fresh node')).length;
for (let t = 0; t < 150 && retried.length < connectionErrors(); t++) await sleep(500);

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

const answered = [
  ...results.filter((r) => r.status === 200 && r.phase !== 'fresh node 1, its first seconds'),
  ...retried.filter((r) => r.status === 200),
];
const lost = answered.filter((r) => !stored.has(r.scoreId!)).length;
const doubled = Number(counts!.final) - Number(counts!.distinct);
const q = quantile;
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
  const ratio = p99 / steadyP99;
  // The issue's targets: recovery (a server back) and a fresh node's first seconds.
  const target = / back\b|^fresh node/.test(p) ? ' (target)' : '';
  return `| ${p} | ${statuses} | ${q(ok, 0.5).toFixed(1)} | ${p99.toFixed(1)} | ${ratio.toFixed(2)}x | ${ratio <= 2 ? 'yes' : '**no**'}${target} |`;
});
// Every connection error, with the socket it happened on: a reused socket idle for about the
// server's keep-alive timeout is the client's stale pool; a fresh one is the server refusing.
const connErrors = results.filter((r) => r.status === 0 && !r.phase.startsWith('fresh node'));
writeFileSync(join(RESULTS, 'faults-errors.json'), JSON.stringify(connErrors, null, 1));
const groups = new Map<string, Result[]>();
for (const r of connErrors) {
  const k = `${r.phase} | node ${r.node + 1}${r.cutByKill ? ' (in flight when SIGKILLed)' : ''} | ${r.error} | ${r.socket?.reused ? 'reused socket' : 'new socket'}`;
  groups.set(k, [...(groups.get(k) ?? []), r]);
}
const range = (xs: number[]) => `${(q(xs, 0) / 1000).toFixed(1)}-${(Math.max(...xs) / 1000).toFixed(1)} s`;
const errorRows = [...groups].map(([k, rs]) => {
  const ss = rs.map((r) => r.socket).filter((x) => x !== undefined);
  return `| ${k} | ${rs.length} | ${ss.length ? range(ss.map((x) => x.idleMs)) : '-'} | ${ss.length ? range(ss.map((x) => x.ageMs)) : '-'} | ${
    ss.length
      ? `${q(
          ss.map((x) => x.served),
          0,
        )}-${Math.max(...ss.map((x) => x.served))}`
      : '-'
  } |`;
});
// Figures are published only from a run where every request got its 200, except those a node's
// SIGKILL cut off in flight, and each of those got its 200 when sent again.
const counted = results.filter((r) => !r.phase.startsWith('fresh node'));
const unexplained = counted.filter((r) => r.status === 0 && !r.cutByKill).length;
const refused = counted.filter((r) => r.status !== 0 && r.status !== 200).length;
const unanswered = retried.filter((r) => r.status !== 200).length + (connErrors.length - retried.length);
const problems = [
  ...(unexplained ? [`${unexplained} connection errors that no crash explains`] : []),
  ...(refused ? [`${refused} answers other than 200`] : []),
  ...(unanswered ? [`${unanswered} requests cut off by the kill not answered 200 when sent again`] : []),
  ...(lost ? [`${lost} lost`] : []),
  ...(doubled ? [`${doubled} doubled`] : []),
];
const retriedMs = retried.filter((r) => r.status === 200).map((r) => r.ms);
const md = `# Fault bench (${new Date().toISOString()})
${problems.length ? `\n**Not publishable: ${problems.join('; ')}.**\n` : ''}
${RPS} scores/s open loop over the API nodes in rotation, ${PHASE_S} s per phase; servers SIGKILLed
and restarted with infra/local/*.sh; latency seen by the client (this process, on the same machine).

| phase | statuses | p50 ms | p99 ms | p99 vs steady | within 2x |
|---|---|---|---|---|---|
${rows.join('\n')}

Where the CPU went (cores, of ${availableParallelism()}; the machine's figure includes every other process on it)
and the p99 lateness of the load generator's own event loop:

${cpu.table((p) => !p.startsWith('warm-up'))}

Connection errors (no HTTP answer): ${connErrors.length}${
  connErrors.length
    ? `

| phase, node, error, socket | count | socket idle before the request | socket age | requests it had served |
|---|---|---|---|---|
${errorRows.join('\n')}`
    : ''
}

Sent again with the same Idempotency-Key (every connection error, as a client would): ${retried.length}, of which
${retriedMs.length} answered 200${retriedMs.length ? ` after ${(q(retriedMs, 0) / 1000).toFixed(1)}-${(Math.max(...retriedMs) / 1000).toFixed(1)} s (a key the crashed node had claimed answers 409 until its 30 s claim expires)` : ''}.

Audit: ${answered.length} scores answered with 200 (first answers and answers to requests sent again); **lost ${lost}** (not in ClickHouse),
**doubled ${doubled}** (counted twice by \`FINAL\`); ${Number(counts!.raw) - Number(counts!.distinct)} re-delivered
rows not yet merged (collapsed by \`FINAL\`); ${stored.size - answered.length} stored scores whose answer never arrived
(cut off by a kill).
`;
writeFileSync(join(RESULTS, 'faults.md'), md);
console.log(md);
process.exit(problems.length === 0 ? 0 : 1);
