/**
 * `npm start`: the whole stack on this machine, no Docker.
 *
 * Brings up Redis, ClickHouse and Kafka (installing them on first run), applies migrations,
 * creates topics, seeds one demo organisation per tier, publishes the capability snapshots Redis
 * lacks (the refresher's one-shot, `npm run refresh -- --missing`: API nodes never build them),
 * starts two API nodes, the audit sink, the refresher and the portal, each logged in to Redis as
 * its own ACL user (infra/local/redis-users.ts), and writes the demo keys to a file only you can
 * read (demo-credentials.ts), printing where it is and a curl to paste. Ctrl-C stops the services
 * in order (API nodes first so no score is lost, then the sink and refresher) and then the
 * servers this run started; servers that were already running are left running.
 *
 * `--cluster` (`npm run start:cluster`): the same on the multi-node engines instead
 * (start-topology.ts), with two audit sinks in one consumer group and two refreshers; the demo
 * keys are then written to `cluster/` under the stack dir.
 *
 * `--restartable` (the fault test, test/cluster/faults.ts): a service that exits does not stop the
 * stack; SIGUSR2 to this process starts every exited service again with the command line and
 * environment it had (the same NODE_ID, port and Redis user). The services' pids are in
 * `services.json` next to the demo credentials, rewritten at every (re)start.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { dirname, join } from 'node:path';
import { createRedis, durableRedis } from '../../shared/clients/redis.ts';
import { loadConfig } from '../../shared/config.ts';
import { TIERS } from '../../shared/vocabulary/score-terms.ts';
import { OrgStore } from '../../shared/orgs/store.ts';
import { UserStore } from '../../shared/portal/users.ts';
import { errorMessage } from '../../shared/error-message.ts';
import {
  DEMO_CREDENTIALS_FILE,
  demoSummary,
  readDemoIds,
  writeDemoCredentials,
  type DemoCredential,
} from './demo-credentials.ts';
import { runtimeFlagsFor } from '../../services/api/runtime-flags.ts';
import { serviceRedisEnv, type RedisService } from './redis-users.ts';
import { staleDataLines, type HealthCapability } from './stale-data.ts';
import { applyEnv, clusterTopology, singleTopology, type ServiceEnv } from './start-topology.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const STACK = process.env.FRS_STACK_DIR ?? join(ROOT, '.stack');
const topology = process.argv.includes('--cluster') ? clusterTopology() : singleTopology();
const RESTARTABLE = process.argv.includes('--restartable');
// The cluster's demo organisations are not the single Redis's: each topology keeps its own file.
const DEMO_FILE = join(STACK, ...(topology.name === 'cluster' ? ['cluster'] : []), DEMO_CREDENTIALS_FILE);
/** Where starts before the credentials file kept the demo ids (no keys); read once, then removed. */
const OLD_DEMO_FILE = join(STACK, 'demo-orgs.json');
const API_PORTS = [8080, 8081];
const PORTAL_PORT = Number(process.env.PORTAL_PORT ?? 8090);
const t0 = performance.now();

/**
 * One `npm start` per checkout: a second one would share `.stack/` and its pid files, and
 * stopping either would stop the other's servers.
 */
const LOCK_FILE = join(STACK, 'start.pid');
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
function takeLock(): void {
  mkdirSync(STACK, { recursive: true });
  if (existsSync(LOCK_FILE)) {
    const pid = Number(readFileSync(LOCK_FILE, 'utf8'));
    if (Number.isInteger(pid) && pid > 0 && processAlive(pid)) {
      console.error(`[start] npm start is already running on this checkout (pid ${pid}); stop it first.`);
      process.exit(1);
    }
    rmSync(LOCK_FILE); // left by a start that was killed
  }
  writeFileSync(LOCK_FILE, String(process.pid), { flag: 'wx' });
}
takeLock();

// Every service, the seeding and the one-shot refresh below read the topology's servers from here.
// A start that cannot finish stops what it began and says so on one line, never a stack trace.
let topologyEnv: ServiceEnv;
try {
  topologyEnv = topology.up();
} catch (err) {
  console.error(`[start] ${errorMessage(err)}; stopping the servers this start began`);
  topology.stop();
  rmSync(LOCK_FILE, { force: true });
  process.exit(1);
}
applyEnv(process.env, topologyEnv);
const cfg = loadConfig();

/**
 * Demo organisations are reused across starts; each start issues fresh keys and revokes the last
 * ones. Made as the admin CLI's Redis user, the one allowed to mint keys.
 */
async function seedDemo(): Promise<DemoCredential[]> {
  const adminCfg = loadConfig({ ...process.env, ...serviceRedisEnv('admin') });
  const redis = createRedis(durableRedis(adminCfg), { connectionName: 'frs-start' });
  const store = new OrgStore(redis);
  const previous = existsSync(DEMO_FILE) ? readDemoIds(DEMO_FILE) : readDemoIds(OLD_DEMO_FILE);
  const out: DemoCredential[] = [];
  try {
    // Keys made before the digest index existed join it (idempotent: one SCAN per start).
    await store.indexKeys();
    // Portal users' email keys made before they were named by digest are renamed (idempotent).
    await new UserStore(redis).migrateEmailKeys();
    for (const tier of TIERS) {
      const prev = previous[tier];
      let orgId = prev && (await store.getOrg(prev.org_id)) ? prev.org_id : undefined;
      if (!orgId) orgId = (await store.createOrg({ name: `demo-${tier}`, tier })).org_id;
      if (prev?.key_id) await store.revokeKey(prev.key_id);
      const key = await store.createKey(orgId);
      out.push({ tier, org_id: orgId, key_id: key.key_id, api_key: key.api_key });
    }
  } finally {
    redis.disconnect();
  }
  mkdirSync(dirname(DEMO_FILE), { recursive: true });
  writeDemoCredentials(DEMO_FILE, out);
  rmSync(OLD_DEMO_FILE, { force: true });
  return out;
}

interface Child {
  name: string;
  proc: ChildProcess;
  /** Starts the service again as it was first started (--restartable). */
  relaunch: () => ChildProcess;
}

/** Where each service's pid is written (name -> pid), for a test that crashes one. */
const SERVICES_FILE = join(dirname(DEMO_FILE), 'services.json');
function writeServices(): void {
  const pids = Object.fromEntries([...apis, ...workers].map((c) => [c.name, c.proc.pid]));
  mkdirSync(dirname(SERVICES_FILE), { recursive: true });
  writeFileSync(SERVICES_FILE, `${JSON.stringify(pids, null, 2)}\n`);
}

/** Each service logs in to Redis as its own ACL user, as in the compose deployment. */
function launch(name: string, entry: string, user: RedisService, env: Record<string, string> = {}): Child {
  // The capabilities' own maximum data ages: health shows the seed data as old as it is.
  const merged = { ...process.env, ...env };
  const spawnIt = () => {
    const proc = spawn(process.execPath, [...runtimeFlagsFor(entry), entry], {
      cwd: ROOT,
      env: { ...merged, ...serviceRedisEnv(user, merged) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const prefix = (chunk: Buffer) =>
      chunk
        .toString()
        .split('\n')
        .filter(Boolean)
        .map((l) => `[${name}] ${l}\n`)
        .join('');
    proc.stdout!.on('data', (d: Buffer) => process.stdout.write(prefix(d)));
    proc.stderr!.on('data', (d: Buffer) => process.stderr.write(prefix(d)));
    proc.on('exit', (code, signal) => {
      if (stopping) return;
      if (RESTARTABLE) {
        console.error(`[start] ${name} exited (${signal ?? code}); SIGUSR2 starts it again`);
        return;
      }
      console.error(`[start] ${name} exited (${signal ?? code}); stopping the stack`);
      void stop(1);
    });
    return proc;
  };
  return { name, proc: spawnIt(), relaunch: spawnIt };
}

const exitedChild = (c: Child) => c.proc.exitCode !== null || c.proc.signalCode !== null;

/** --restartable: SIGUSR2 starts every service that has exited again, as it was started. */
function restartExited(): void {
  if (stopping) return;
  for (const c of [...apis, ...workers].filter(exitedChild)) {
    c.proc = c.relaunch();
    console.error(`[start] ${c.name} started again (pid ${c.proc.pid})`);
  }
  writeServices();
}

/**
 * How long the services may take to answer ready: the cluster's some twenty processes on a 2-core
 * machine once kept an API node warming up past 60 s (one start in four).
 */
const READY_TIMEOUT_MS = topology.name === 'cluster' ? 180_000 : 60_000;

async function waitReady(url: string, timeoutMs = READY_TIMEOUT_MS): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} did not become ready`);
}

let stopping = false;
const apis: Child[] = [];
const workers: Child[] = [];

/** Every service exits within its own stop deadline (20 s at most); past this one it is killed. */
const CHILD_STOP_MS = 30_000;

async function stopChild(c: Child): Promise<void> {
  if (exitedChild(c)) return;
  const exited = once(c.proc, 'exit');
  c.proc.kill('SIGTERM');
  const kill = setTimeout(() => c.proc.kill('SIGKILL'), CHILD_STOP_MS);
  await exited;
  clearTimeout(kill);
}

async function stop(code = 0): Promise<void> {
  if (stopping) return;
  stopping = true;
  console.error('\n[start] stopping API nodes, then sink and refresher');
  await Promise.all(apis.map(stopChild));
  await Promise.all(workers.map(stopChild));
  topology.stop();
  rmSync(LOCK_FILE, { force: true });
  rmSync(SERVICES_FILE, { force: true });
  process.exit(code);
}
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
if (RESTARTABLE) process.on('SIGUSR2', restartExited);

/** A start that cannot finish: one line saying what failed, then everything this run began stops. */
async function failed(what: string, err: unknown): Promise<never> {
  console.error(`[start] ${what} failed (${errorMessage(err)}); stopping everything this start began`);
  await stop(1);
  throw err; // not reached: stop exits
}

const demo = await seedDemo().catch((err: unknown) => failed('seeding the demo organisations', err));
// First start on this Redis: the nodes should serve full snapshots from their first request.
try {
  execFileSync(process.execPath, [join(ROOT, 'services/refresher/refresh-now.ts'), '--missing'], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: {
      ...process.env,
      ...serviceRedisEnv('refresher'),
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    },
  });
} catch {
  console.error('[start] some capability snapshots could not be built; the refresher retries them');
}
// One sink or refresher keeps its old name and metrics port; the others are numbered and their
// metrics ports follow 10 apart (the sinks share one consumer group).
const numbered = (name: string, count: number, i: number) => (count === 1 ? name : `${name}-${i + 1}`);
const metricsPort = (variable: string, first: number, i: number): Record<string, string> =>
  i === 0 ? {} : { [variable]: String(first + 10 * i) };
for (let i = 0; i < topology.sinks; i++)
  workers.push(
    launch(numbered('audit-sink', topology.sinks, i), 'services/audit-sink/main.ts', 'sink', {
      ...metricsPort('AUDIT_SINK_METRICS_PORT', cfg.AUDIT_SINK_METRICS_PORT, i),
    }),
  );
for (let i = 0; i < topology.refreshers; i++)
  workers.push(
    launch(numbered('refresher', topology.refreshers, i), 'services/refresher/main.ts', 'refresher', {
      ...metricsPort('REFRESHER_METRICS_PORT', cfg.REFRESHER_METRICS_PORT, i),
    }),
  );
for (const [i, port] of API_PORTS.entries()) {
  apis.push(
    launch(`api-${i + 1}`, 'services/api/main.ts', 'api', {
      PORT: String(port),
      NODE_ID: `api-${i + 1}`,
      CONTROLS_NODE_COUNT: String(API_PORTS.length),
    }),
  );
}
workers.push(launch('portal', 'services/portal/main.ts', 'portal', { PORTAL_PORT: String(PORTAL_PORT) }));
writeServices();
await Promise.all([
  ...API_PORTS.map((p) => waitReady(`http://127.0.0.1:${p}/readyz`)),
  waitReady(`http://127.0.0.1:${PORTAL_PORT}/livez`),
]).catch((err: unknown) => failed('waiting for the services', err));

/** What health says of stale data, for the banner; nothing if health cannot be read. */
async function staleData(): Promise<string> {
  try {
    const res = await fetch(`http://127.0.0.1:${API_PORTS[0]}/v1/health`);
    const body = (await res.json()) as { capabilities: Record<string, HealthCapability> };
    const lines = staleDataLines(body.capabilities, Date.now());
    return lines.length > 0 ? `\n${lines.join('\n')}\n` : '';
  } catch {
    return '';
  }
}

const bureau = demo.find((d) => d.tier === 'bureau')!;
const staleNote = await staleData();
console.log(`
Fraud risk scoring is up in ${((performance.now() - t0) / 1000).toFixed(1)} s.

  API nodes    http://127.0.0.1:${API_PORTS.join(', http://127.0.0.1:')}
  Health       http://127.0.0.1:${API_PORTS[0]}/v1/health
  Contract     http://127.0.0.1:${API_PORTS[0]}/v1/openapi.yaml
  Portal       http://127.0.0.1:${PORTAL_PORT} (Keys and Activity pages; create a user below)
  Redis        ${cfg.REDIS_URL} (explain copies: ${cfg.EXPLAIN_REDIS_URL}); each service logs in as
               its own ACL user (docs/security.md)
  Kafka        ${cfg.KAFKA_BROKERS.join(',')} (topic scores.v1)
  ClickHouse   ${cfg.CLICKHOUSE_URL} (database ${cfg.CLICKHOUSE_DATABASE}; clickhouse-client --query "SELECT count() FROM ${cfg.CLICKHOUSE_DATABASE}.scores")
${topology.describe(topologyEnv)}
${demoSummary(DEMO_FILE, demo)}
${staleNote}
Try it with the bureau key (read from the file, so it is not in this output):
  KEY=$(node -p "require('${DEMO_FILE}').bureau.api_key")
  curl -s http://127.0.0.1:${API_PORTS[0]}/v1/score \\
    -H "Authorization: Bearer $KEY" \\
    -H 'Content-Type: application/json' \\
    -d '{"subject":{"phone_number":"+447911123456","ip_address":"81.2.69.142"}}'

Portal user (prints a one-time setup link where you choose a password, then sign in):
  npm run --silent admin -- user create --org ${bureau.org_id} --email you@example.com

Ctrl-C stops everything this run started.
`);
