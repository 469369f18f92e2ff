/**
 * The servers `npm start` runs the services on, one per topology: `single` (stack.sh: one Redis,
 * one Kafka broker, one ClickHouse; what `npm start` always ran) and `cluster` (`npm run
 * start:cluster`: Redis Cluster 3 primaries + 3 replicas, 3 KRaft brokers, ClickHouse 2 shards x
 * 2 replicas on 3 ZooKeepers, from the infra/local/*-cluster.sh scripts; docs/scale-out.md).
 * Each brings its servers up, says which environment the services get, and stops exactly the
 * servers it started.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

const LOCAL = join(import.meta.dirname);
const ROOT = join(LOCAL, '..', '..');

/**
 * Runs one phase of a start; its failure becomes one line naming the phase (the script or program
 * printed why just above it), which start.ts prints before stopping what it started.
 */
function phase<T>(what: string, run: () => T): T {
  try {
    return run();
  } catch {
    throw new Error(`${what} failed (the line above says why)`);
  }
}

/** A variable set to undefined is removed from the services' environment. */
export type ServiceEnv = Record<string, string | undefined>;

export interface Topology {
  name: 'single' | 'cluster';
  /** Installs what is missing, starts what is not running, migrates and creates topics. */
  up(): ServiceEnv;
  /** Stops the servers this run started; the ones found running are left running. */
  stop(): void;
  /** Audit sinks (one consumer group) and refreshers to run. */
  sinks: number;
  refreshers: number;
  /** Where the servers are, for the start banner. */
  describe(env: ServiceEnv): string;
}

const sh = (script: string, ...args: string[]) =>
  execFileSync('bash', [join(LOCAL, script), ...args], { stdio: ['ignore', 'inherit', 'inherit'] });
const shOut = (script: string, ...args: string[]) =>
  execFileSync('bash', [join(LOCAL, script), ...args], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
const node = (entry: string, env: ServiceEnv) =>
  execFileSync(process.execPath, [join(ROOT, entry)], {
    cwd: ROOT,
    stdio: ['ignore', 'inherit', 'inherit'],
    env: applyEnv({ ...process.env }, env),
  });

/** `base` with `env` laid over it, variables set to undefined removed. */
export function applyEnv(base: NodeJS.ProcessEnv, env: ServiceEnv): NodeJS.ProcessEnv {
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) delete base[k];
    else base[k] = v;
  }
  return base;
}

/** Servers `stack.sh status` reports running (redis, redis-cache, clickhouse, kafka). */
function stackRunning(): Set<string> {
  return new Set(
    shOut('stack.sh', 'status')
      .split('\n')
      .filter((l) => l.includes(': running'))
      .map((l) => l.split(':')[0]!),
  );
}

export function singleTopology(): Topology {
  let wasRunning = new Set<string>();
  return {
    name: 'single',
    sinks: 1,
    refreshers: 1,
    up() {
      wasRunning = stackRunning();
      phase('stack.sh up', () => sh('stack.sh', 'up'));
      return {};
    },
    stop() {
      const ours = ['kafka', 'clickhouse', 'redis'].filter((s) => !wasRunning.has(s));
      for (const s of ours) sh(`${s}.sh`, 'stop');
      if (ours.length < 3)
        console.error('[start] servers that were running before this start are left running');
    },
    describe() {
      return '';
    },
  };
}

/** Cluster servers: a script and whether its status shows every node running. */
const CLUSTER_SCRIPTS = {
  'redis-cluster.sh': (s: string) => !/ down$/m.test(s) && s.includes('cluster_state:ok'),
  'kafka-cluster.sh': (s: string) => !s.includes('stopped'),
  'clickhouse-cluster.sh': (s: string) => !s.includes('stopped'),
} as const;
type ClusterScript = keyof typeof CLUSTER_SCRIPTS;

function portOpen(port: number): boolean {
  try {
    execFileSync('bash', ['-c', `exec 3<>/dev/tcp/127.0.0.1/${port}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** The explain cache's port as redis.sh runs it (FRS_REDIS_CACHE_PORT, 6380). */
const explainPort = () => Number(process.env.FRS_REDIS_CACHE_PORT ?? 6380);

/** `KEY=value` lines (redis-cluster.sh env) as an object. */
function parseEnv(text: string): Record<string, string> {
  return Object.fromEntries(
    text
      .split('\n')
      .map((l) => /^([A-Z0-9_]+)=(.*)$/.exec(l.trim()))
      .filter((m) => m !== null)
      .map((m) => [m[1]!, m[2]!]),
  );
}

export function clusterTopology(): Topology {
  const started: ClusterScript[] = [];
  let cacheStarted = false;
  return {
    name: 'cluster',
    sinks: 2,
    refreshers: 2,
    up() {
      // The same sources as `npm start`: Debian packages and the Maven Central jars, once.
      sh('redis.sh', 'install');
      sh('clickhouse.sh', 'install');
      sh('kafka.sh', 'install');
      // The explain cache stays one server (docs/scale-out.md); it also makes the ACL passwords
      // the cluster nodes load. The single-node durable Redis, Kafka and ClickHouse are not touched.
      // By port, not pid file: a cache started from another stack dir is as good.
      if (!portOpen(explainPort())) {
        const running = stackRunning();
        sh('redis.sh', 'start');
        // redis.sh stops both of its servers: only when it started both.
        cacheStarted = !running.has('redis');
      }
      for (const script of Object.keys(CLUSTER_SCRIPTS) as ClusterScript[]) {
        if (!CLUSTER_SCRIPTS[script](shOut(script, 'status'))) started.push(script);
        phase(`${script} up`, () => sh(script, 'up'));
      }
      const env: ServiceEnv = {
        ...parseEnv(shOut('redis-cluster.sh', 'env')),
        REDIS_SENTINELS: undefined,
        // An admission is answered once a replica holds it: a primary's failover loses no credit.
        REDIS_WAIT_REPLICAS: '1',
        // The ledger lives in the cluster with the rest.
        LEDGER_REDIS_URL: undefined,
        KAFKA_BROKERS: shOut('kafka-cluster.sh', 'brokers').trim(),
        KAFKA_REPLICATION_FACTOR: '3',
        KAFKA_MIN_INSYNC_REPLICAS: '2',
        // The cluster's listeners are PLAINTEXT: a shell's SASL or TLS settings would not connect.
        KAFKA_SASL_MECHANISM: undefined,
        KAFKA_SASL_USERNAME: undefined,
        KAFKA_SASL_PASSWORD: undefined,
        KAFKA_SSL: undefined,
        KAFKA_SSL_CA_FILE: undefined,
        CLICKHOUSE_URL: shOut('clickhouse-cluster.sh', 'urls').trim(),
        CLICKHOUSE_CLUSTER: 'frs',
      };
      phase('the ClickHouse migrations', () => node('infra/clickhouse/migrate.ts', env));
      phase('creating the Kafka topics', () => node('infra/kafka/topics.ts', env));
      return env;
    },
    stop() {
      // Reverse order: ClickHouse and Kafka hold no Redis state, Redis goes last.
      for (const script of [...started].reverse()) sh(script, 'down');
      if (cacheStarted) sh('redis.sh', 'stop');
      if (started.length < 3)
        console.error('[start] cluster servers that were running before this start are left running');
    },
    describe(env) {
      return `  Topology     cluster: Redis ${env.REDIS_CLUSTER_NODES} (+3 replicas), Kafka ${env.KAFKA_BROKERS},
               ClickHouse cluster frs ${env.CLICKHOUSE_URL}
`;
    },
  };
}
