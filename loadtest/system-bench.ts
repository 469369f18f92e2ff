/**
 * `npm run bench:system`: what one score costs the whole system, every process of it.
 *
 * Starts a system of its own (two API nodes, the audit sink, the refresher, the portal) on a Kafka
 * broker and a ClickHouse server of its own (infra/harness/private-stack.ts: a fresh broker and an
 * empty database, and no other tenant's traffic in their CPU) and the running stack's two Redis
 * servers; SYSTEM_SHARED=1 uses the running stack's Kafka and ClickHouse instead (the sink with
 * a consumer group of its own set to the topic's end). SYSTEM_WATCHERS Activity pages (default
 * 1) are open throughout: each polls the portal's /activity/live twice a second, as the page
 * does (loadtest/activity-watcher.ts, not counted), so the portal is measured as it is used. It
 * finds the API nodes' closed-loop saturation with k6, runs one unmeasured step (the fresh JVM
 * and Node processes compile their hot paths), then offers fixed rates (SYSTEM_FRACTIONS
 * of it, default ¼ and ½, or SYSTEM_RATES='100,200' req/s) in SYSTEM_ROUNDS rounds (default 3)
 * of SYSTEM_DURATION seconds (default 20). Around each step it reads every process's CPU from
 * /proc/<pid>/stat, the same way for all: the services, both Redis servers, the Kafka broker and
 * ClickHouse; the window closes once the sink has written every score of the step to ClickHouse,
 * so the consumers' work for the step is inside it. Each process's CPU per score is the median
 * over the rounds. The idle column is each process's CPU per second with no load of ours (after
 * the warm-up step, so a fresh JVM's compiler does not count as idle); the two Redis servers are
 * shared with whoever else uses them meanwhile.
 *
 * A step with a failed request (runK6 throws), a service that exited, or scores the sink did not
 * write within 20 s fails the run: nothing is written. Iterations k6 could not start in time (a
 * starved machine) are not errors: every figure is per score served, and the achieved rate and
 * the dropped iterations are in the table. Otherwise writes loadtest/results/system.md and
 * docs/performance/system-cost.svg (SYSTEM_OUT=<name>: <name>.md and <name>-cost.svg).
 * The sink counts network velocity as a deployment's one group does; SYSTEM_VELOCITY=false leaves
 * it out, so two runs tell what counting costs per score.
 * SYSTEM_COMPARE_PORTAL=<checkout>: a second portal from another checkout (a PORTAL_GROUP of its
 * own, for a checkout whose portal consumes scores.v1 itself) runs beside it, watched the same
 * way, for a before/after of the portal in one run.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createClickHouse } from '../shared/clients/clickhouse.ts';
import { createKafka, SCORES_TOPIC } from '../shared/clients/kafka.ts';
import { createRedis } from '../shared/clients/redis.ts';
import { loadConfig } from '../shared/config.ts';
import { OrgStore } from '../shared/orgs/store.ts';
import { UserStore } from '../shared/portal/users.ts';
import { SESSION_COOKIE } from '../services/portal/sessions.ts';
import { completeSetup, cookiePair } from '../infra/harness/portal-setup.ts';
import {
  freePort,
  spawnService,
  startApi,
  startSink,
  type ApiNode,
  type Service,
} from '../infra/harness/processes.ts';
import { startPrivateStack, type PrivateStack } from '../infra/harness/private-stack.ts';
import { publishSnapshots } from '../infra/harness/snapshots.ts';
import { waitFor } from '../infra/harness/wait.ts';
import { ensureSubjects } from './bench-setup.ts';
import { Publication, runStages } from './bench-stages.ts';
import { listeningPids, stackPorts } from './core-shield.ts';
import { figure, show, type Figure } from './figures.ts';
import { runK6, type Step } from './k6-step.ts';
import { machineTicks } from './phase-cpu.ts';
import { cpuMicros } from './proc-cpu.ts';
import { systemCostSvg } from './system-chart.ts';

const ROOT = join(import.meta.dirname, '..');
const RESULTS = join(ROOT, 'loadtest', 'results');
const SUBJECTS = join(RESULTS, 'subjects.json');
const DURATION_S = Number(process.env.SYSTEM_DURATION ?? 20);
const ROUNDS = Number(process.env.SYSTEM_ROUNDS ?? 3);
const FRACTIONS = (process.env.SYSTEM_FRACTIONS ?? '0.25,0.5').split(',').map(Number);
const FIXED_RATES = process.env.SYSTEM_RATES?.split(',').map(Number);
const COMPARE_PORTAL = process.env.SYSTEM_COMPARE_PORTAL;
const WATCHERS = Number(process.env.SYSTEM_WATCHERS ?? 1);
/**
 * SYSTEM_SERVICES_ROOT=<checkout>: every service runs from that checkout instead (its entry points
 * are spawned by relative path), for a whole system before a change against after it.
 */
const SERVICES_ROOT = process.env.SYSTEM_SERVICES_ROOT;
if (SERVICES_ROOT) process.chdir(SERVICES_ROOT);
/** Name of what it writes: loadtest/results/<OUT>.md and docs/performance/<OUT>-cost.svg. */
const OUT = process.env.SYSTEM_OUT ?? 'system';
const SHARED = process.env.SYSTEM_SHARED === '1';
const VELOCITY = process.env.SYSTEM_VELOCITY !== 'false';
const IDLE_S = 10;

const log = (m: string) => console.error(`[system] ${m}`);

interface Role {
  name: string;
  pids: () => number[];
  /** A service this run started: it must still be running after every step. */
  service?: Service;
  /** Measured beside the system, not part of it (the comparison portal): left out of totals and the chart. */
  beside?: boolean;
}

interface RateResult {
  label: string;
  offered: number;
  rps: Figure;
  p99: Figure;
  dropped: Figure;
  others: Figure;
  /** µs of CPU per score, by role */
  perScore: Map<string, Figure>;
  total: Figure;
}

const cfg = loadConfig();
let priv: PrivateStack | undefined;
/** Where this run's Kafka and ClickHouse are: its own, or the running stack's. */
let where = {
  kafka: cfg.KAFKA_BROKERS.join(','),
  clickhouse: cfg.CLICKHOUSE_URL,
  database: cfg.CLICKHOUSE_DATABASE,
};
const publication = new Publication();
const services: Service[] = [];
let apis: ApiNode[] = [];
const groups: string[] = [];
const roles: Role[] = [];
let apiKey = '';
let orgId = '';
let setupTokens: string[] = [];
const watchers: ChildProcess[] = [];
let sinkGroup = '';
let saturation = 0;
const idle = new Map<string, number>();
const results: RateResult[] = [];

async function setUp(): Promise<void> {
  ensureSubjects(SUBJECTS);
  await publishSnapshots();
  if (!SHARED) {
    priv = await startPrivateStack('system-bench', 'frs_system');
    where = { kafka: priv.kafkaBrokers, clickhouse: priv.clickhouseUrl, database: 'frs_system' };
  }
  const redis = createRedis(cfg.REDIS_URL, { connectionName: 'frs-bench-system' });
  try {
    const store = new OrgStore(redis);
    const org = await store.createOrg({
      name: 'bench-system',
      tier: 'bureau',
      rateRps: 1_000_000,
      credits: 1_000_000_000,
    });
    orgId = org.org_id;
    apiKey = (await store.createKey(org.org_id)).api_key;
    // One portal user per portal watched (a setup link signs in once).
    const users = new UserStore(redis);
    setupTokens = await Promise.all(
      [0, 1].map(
        async (i) => (await users.create(org.org_id, `bench-${process.pid}-${i}@example.test`)).setupToken,
      ),
    );
  } finally {
    redis.disconnect();
  }
  // A sink group of its own that starts at the topic's end: it writes this run's scores, not the
  // topic's history, and shares no partition with a sink someone else runs.
  sinkGroup = `frs-bench-system-sink-${process.pid}`;
  const admin = createKafka([where.kafka], 'frs-bench-system').admin();
  await admin.connect();
  try {
    await admin.resetOffsets({ groupId: sinkGroup, topic: SCORES_TOPIC, earliest: false });
  } finally {
    await admin.disconnect();
  }
  const env = {
    LOG_LEVEL: 'warn',
    KAFKA_BROKERS: where.kafka,
    CLICKHOUSE_URL: where.clickhouse,
    CLICKHOUSE_DATABASE: where.database,
  };
  apis = await Promise.all(['system-api-1', 'system-api-2'].map((id) => startApi({ ...env, NODE_ID: id })));
  services.push(...apis);
  // As a deployment runs its one sink group: feeding Activity and counting network velocity
  // (SYSTEM_VELOCITY=false leaves counting out, for what it costs per score).
  const sink = startSink({
    ...env,
    AUDIT_SINK_GROUP: sinkGroup,
    AUDIT_SINK_ACTIVITY: 'true',
    AUDIT_SINK_VELOCITY: VELOCITY ? 'true' : 'false',
  });
  const refresher = spawnService('services/refresher/main.ts', env);
  groups.push(sinkGroup, `${sinkGroup}-ledger`, ...(VELOCITY ? [`${sinkGroup}-velocity`] : []));
  const portal = await startPortal(env, SERVICES_ROOT ?? ROOT);
  await watch(portal.url, setupTokens[0]!);
  services.push(sink, refresher, portal);
  const pidOf = (s: Service) => () => (s.proc.pid ? [s.proc.pid] : []);
  apis.forEach((a, i) => roles.push({ name: `API node ${i + 1}`, pids: pidOf(a), service: a }));
  roles.push({ name: 'portal', pids: pidOf(portal), service: portal });
  if (COMPARE_PORTAL) {
    groups.push(`frs-bench-system-portal-compare-${process.pid}`);
    const before = await startPortal({ ...env, PORTAL_GROUP: groups.at(-1)! }, COMPARE_PORTAL);
    await watch(before.url, setupTokens[1]!);
    services.push(before);
    roles.push({ name: `portal (${COMPARE_PORTAL})`, pids: pidOf(before), service: before, beside: true });
  }
  roles.push({ name: 'audit sink', pids: pidOf(sink), service: sink });
  roles.push({ name: 'refresher', pids: pidOf(refresher), service: refresher });
  const servers: [string, string][] = [
    ['Kafka broker', where.kafka],
    ['ClickHouse', where.clickhouse],
    ['Redis', cfg.REDIS_URL],
    ['Redis, explain cache', cfg.EXPLAIN_REDIS_URL],
  ];
  for (const [name, url] of servers) {
    const pids = listeningPids(stackPorts([url]));
    if (pids.length === 0) throw new Error(`${name} (${url}) is not running: start the stack first`);
    roles.push({ name, pids: () => pids });
  }
  // The sink has no port here to answer readyz: give its group a moment before any score is
  // counted (the warm-up step comes first anyway).
  await sleep(5_000);
}

/** A portal of this checkout (or `root`'s), once it answers readyz. */
async function startPortal(env: Record<string, string>, root = ROOT): Promise<Service & { url: string }> {
  const port = await freePort();
  const portal = spawnService(join(root, 'services/portal/main.ts'), { ...env, PORTAL_PORT: String(port) });
  await waitFor(
    'portal /readyz',
    async () => {
      if (portal.proc.exitCode !== null) throw new Error(`portal exited:\n${portal.output()}`);
      return (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => null))?.ok === true;
    },
    90_000,
  );
  return { ...portal, url: `http://127.0.0.1:${port}` };
}

/** SYSTEM_WATCHERS open Activity pages on `portalUrl`, signed in with the setup link's token. */
async function watch(portalUrl: string, setupToken: string): Promise<void> {
  if (WATCHERS === 0) return;
  const res = await completeSetup(portalUrl, setupToken, `bench system password ${process.pid}`);
  const cookie = cookiePair(res, SESSION_COOKIE);
  if (res.status !== 303 || !cookie) throw new Error(`portal setup answered ${res.status}`);
  for (let i = 0; i < WATCHERS; i++)
    watchers.push(
      spawn(process.execPath, [join(ROOT, 'loadtest/activity-watcher.ts')], {
        env: { ...process.env, PORTAL_URL: portalUrl, COOKIE: cookie },
        stdio: ['ignore', 'ignore', 'inherit'],
      }),
    );
}

function assertAlive(): void {
  for (const w of watchers)
    if (w.exitCode !== null) throw new Error('an Activity watcher stopped: the portal answered an error');
  for (const r of roles)
    if (r.service && (r.service.proc.exitCode !== null || r.service.proc.signalCode !== null))
      throw new Error(`${r.name} exited during the run:\n${r.service.output().slice(-2000)}`);
}

const cpuByRole = () => new Map(roles.map((r) => [r.name, cpuMicros(r.pids())]));

const apiUrls = () => apis.map((a) => a.url).join(',');

async function rowsWritten(): Promise<number> {
  const ch = createClickHouse(where.clickhouse);
  try {
    const rs = await ch.query({
      query: `SELECT uniqExact(score_id) AS n FROM ${where.database}.scores WHERE org_id = '${orgId}'`,
      format: 'JSONEachRow',
    });
    const [row] = (await rs.json()) as { n: string | number }[];
    return Number(row?.n ?? 0);
  } finally {
    await ch.close();
  }
}

let expectedRows = 0;

interface Measurement {
  step: Step;
  perScore: Map<string, number>;
  /** Cores the rest of the machine used meanwhile (k6 and other tenants): what this run cannot control. */
  others: number;
}

/** One open-loop step at `rate`, with each role's CPU per score over it. */
async function step(rate: number): Promise<Measurement> {
  const machineBefore = machineTicks();
  const startedAt = performance.now();
  const before = cpuByRole();
  const s = runK6({
    BASE_URLS: apiUrls(),
    KIND: 'score',
    API_KEY: apiKey,
    SUBJECTS_FILE: SUBJECTS,
    MODE: 'rate',
    RATE: String(Math.round(rate)),
    DURATION: `${DURATION_S}s`,
  });
  expectedRows += s.requests;
  // The window closes once the sink wrote every score: the consumers' work is inside it.
  await waitFor('the sink to write the step', async () => (await rowsWritten()) >= expectedRows, 20_000, 250);
  await sleep(1_000); // the sink's Activity write of the last batch
  const after = cpuByRole();
  const machineAfter = machineTicks();
  const seconds = (performance.now() - startedAt) / 1000;
  const oursUs = roles.reduce((a, r) => a + after.get(r.name)! - before.get(r.name)!, 0);
  // /proc/stat counts in USER_HZ ticks (1/100 s).
  const others = ((machineAfter.busy - machineBefore.busy) / 100 - oursUs / 1e6) / seconds;
  assertAlive();
  const perScore = new Map(
    roles.map((r) => [r.name, (after.get(r.name)! - before.get(r.name)!) / s.requests]),
  );
  return { step: s, perScore, others };
}

/** Unmeasured: the fresh broker's JIT and the services' hot paths compile here, not in round 1. */
async function warmUp(): Promise<void> {
  await step(FIXED_RATES ? Math.max(...FIXED_RATES) : 50);
}

async function measureIdle(): Promise<void> {
  const before = cpuByRole();
  await sleep(IDLE_S * 1000);
  const after = cpuByRole();
  for (const r of roles) idle.set(r.name, (after.get(r.name)! - before.get(r.name)!) / IDLE_S / 1000);
}

async function measureSaturation(): Promise<void> {
  const s = runK6({
    BASE_URLS: apiUrls(),
    KIND: 'score',
    API_KEY: apiKey,
    SUBJECTS_FILE: SUBJECTS,
    MODE: 'saturate',
    VUS: '64',
    DURATION: `${DURATION_S}s`,
  });
  expectedRows += s.requests;
  saturation = s.rps;
  log(`saturation ${saturation.toFixed(0)} req/s (p99 ${s.p99.toFixed(1)} ms)`);
  await waitFor('the sink to catch up', async () => (await rowsWritten()) >= expectedRows, 60_000, 500);
}

/** The system's CPU per score: every role but those measured beside it. */
const systemTotal = (perScore: Map<string, number>) =>
  roles.filter((r) => !r.beside).reduce((a, r) => a + perScore.get(r.name)!, 0);

async function measureRates(): Promise<void> {
  const rates = FIXED_RATES ?? FRACTIONS.map((f) => f * saturation);
  const labels = FIXED_RATES
    ? FIXED_RATES.map((r) => `${r} req/s`)
    : FRACTIONS.map((f, i) => `${f * 100} % (${Math.round(rates[i]!)} req/s)`);
  const steps = rates.map(() => [] as Measurement[]);
  for (let round = 1; round <= ROUNDS; round++)
    for (const [i, rate] of rates.entries()) {
      const m = await step(rate);
      steps[i]!.push(m);
      const total = systemTotal(m.perScore);
      const parts = [...m.perScore].map(([n, us]) => `${n} ${us.toFixed(0)}`).join(', ');
      log(
        `round ${round}, ${labels[i]}: ${m.step.requests} scores (${m.step.dropped} dropped), ` +
          `other processes ${m.others.toFixed(2)} cores, ` +
          `${total.toFixed(0)} µs CPU per score: ${parts}`,
      );
    }
  for (const [i, rate] of rates.entries()) {
    const ms = steps[i]!;
    const perScore = new Map(roles.map((r) => [r.name, figure(ms.map((m) => m.perScore.get(r.name)!))]));
    results.push({
      label: labels[i]!,
      offered: rate,
      rps: figure(ms.map((m) => m.step.rps)),
      p99: figure(ms.map((m) => m.step.p99)),
      dropped: figure(ms.map((m) => m.step.dropped)),
      others: figure(ms.map((m) => m.others)),
      perScore,
      total: figure(ms.map((m) => systemTotal(m.perScore))),
    });
  }
}

function report(): void {
  const date = new Date().toISOString().slice(0, 16).replace('T', ' ');
  const head = `| process | idle CPU (ms/s) | ${results.map((r) => `CPU per score at ${r.label}, µs`).join(' | ')} |`;
  const lines = [
    `System cost per score, ${date} UTC, services of ${SERVICES_ROOT ?? 'this checkout'}, ${SHARED ? "the running stack's Kafka and ClickHouse (shared)" : 'a Kafka broker and ClickHouse server of its own'}: ${ROUNDS} rounds of ${DURATION_S} s per rate, median (min–max); ` +
      (FIXED_RATES ? 'fixed rates' : `API saturation ${saturation.toFixed(0)} req/s (64 VUs, closed loop)`) +
      `; ${WATCHERS} Activity page(s) open on each portal throughout (polling twice a second).`,
    '',
    head,
    `|---|---:|${results.map(() => '---:|').join('')}`,
    ...roles
      .filter((r) => !r.beside)
      .map(
        (r) =>
          `| ${r.name} | ${idle.get(r.name)!.toFixed(1)} | ${results.map((x) => show(x.perScore.get(r.name)!)).join(' | ')} |`,
      ),
    `| **total** | ${roles
      .filter((r) => !r.beside)
      .reduce((a, r) => a + idle.get(r.name)!, 0)
      .toFixed(1)} | ${results.map((x) => `**${show(x.total)}**`).join(' | ')} |`,
    ...roles
      .filter((r) => r.beside)
      .map(
        (r) =>
          `| beside it: ${r.name} | ${idle.get(r.name)!.toFixed(1)} | ${results.map((x) => show(x.perScore.get(r.name)!)).join(' | ')} |`,
      ),
    `| achieved rate, req/s | | ${results.map((x) => show(x.rps)).join(' | ')} |`,
    `| k6 p99, ms | | ${results.map((x) => show(x.p99, 1)).join(' | ')} |`,
    `| iterations k6 dropped | | ${results.map((x) => show(x.dropped)).join(' | ')} |`,
    `| cores used by other processes (k6, other tenants) | | ${results.map((x) => show(x.others, 2)).join(' | ')} |`,
    '',
  ];
  const api = (x: RateResult) =>
    [...x.perScore].filter(([n]) => n.startsWith('API node')).reduce((a, [, f]) => a + f.median, 0);
  for (const x of results)
    for (const name of roles.map((r) => r.name).filter((n) => n.startsWith('portal')))
      lines.push(
        `- ${x.label}: ${name} ${((x.perScore.get(name)!.median / api(x)) * 100).toFixed(1)} % of the API nodes' CPU per score.`,
      );
  const md = `${lines.join('\n')}\n`;
  process.stdout.write(md);
  mkdirSync(RESULTS, { recursive: true });
  publication.add(join(RESULTS, `${OUT}.md`), md);
  publication.add(
    join(ROOT, 'docs', 'performance', `${OUT}-cost.svg`),
    systemCostSvg(
      `CPU per score by process, ${SERVICES_ROOT ? `services of ${SERVICES_ROOT}` : 'this checkout'} (median of ${ROUNDS} rounds, ${date} UTC)`,
      results.map((x) => ({
        label: x.label,
        parts: roles
          .filter((r) => !r.beside)
          .map((r) => ({ name: r.name, us: x.perScore.get(r.name)!.median })),
      })),
    ),
  );
}

async function cleanUp(): Promise<void> {
  for (const w of watchers) w.kill('SIGTERM');
  await Promise.all(services.map((s) => s.stop().catch(() => null)));
  if (priv) return priv.down();
  if (groups.length === 0) return;
  // Its groups are this run's alone: left behind they would only clutter the broker.
  const admin = createKafka([where.kafka], 'frs-bench-system').admin();
  await admin
    .connect()
    .then(() => admin.deleteGroups(groups))
    .catch(() => undefined)
    .finally(() => admin.disconnect());
}

const code = await runStages(
  [
    { name: 'start a system of its own', run: setUp },
    { name: 'warm-up step (not measured)', run: warmUp },
    { name: 'idle CPU of every process', run: measureIdle },
    // Fixed rates need no saturation: its full load is left out.
    ...(FIXED_RATES ? [] : [{ name: 'saturation', run: measureSaturation }]),
    { name: 'fixed rates', run: measureRates },
    { name: 'report', run: report },
  ],
  publication,
  log,
).finally(cleanUp);
process.exit(code);
