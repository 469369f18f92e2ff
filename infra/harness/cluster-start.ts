/**
 * `npm run start:cluster` run as a child for the cluster tests (test/cluster/start-cluster.ts,
 * test/cluster/faults.ts): spawned in a process group of its own, as Ctrl-C would find it, with
 * its output kept for a failure's report; `stop` sends SIGINT to the group and SIGKILL after a
 * deadline.
 */
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { connect } from 'node:net';
import { join } from 'node:path';
import { sleep } from './wait.ts';

const ROOT = join(import.meta.dirname, '..', '..');

export const CLUSTER_API_PORTS = [8080, 8081];
/** The first ClickHouse node's HTTP port: the Distributed tables answer on any node. */
export const CLUSTER_CLICKHOUSE = 'http://127.0.0.1:18131';
const range = (from: number, count: number) => Array.from({ length: count }, (_, i) => from + i);
/** Every port the topology listens on: services, then the cluster servers of infra/local/*-cluster.sh. */
export const CLUSTER_TOPOLOGY_PORTS = [
  ...CLUSTER_API_PORTS,
  8090,
  ...range(7000, 6), // Redis Cluster
  ...range(19191, 3), // Kafka brokers
  ...range(19291, 3), // their controllers
  ...range(18131, 4), // ClickHouse HTTP
  ...range(19131, 4), // ClickHouse native
  ...range(12181, 3), // ZooKeeper
];
/** The single-node dev servers, which start:cluster must leave as they are. */
export const SINGLE_PORTS = [6379, 6380, 9092, 8123];

export function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });
}
export const listeningOf = async (ports: number[]) =>
  (await Promise.all(ports.map(async (p) => ((await listening(p)) ? p : undefined)))).filter(
    (p) => p !== undefined,
  );

export interface ClusterStart {
  pid: number;
  running(): boolean;
  /** The last `lines` lines of its output. */
  tail(lines?: number): string;
  /** Resolves once every API node's /readyz answers 200; throws if the start exits first. */
  waitReady(timeoutMs?: number): Promise<void>;
  /** SIGINT to the group; SIGKILL and a throw past the deadline. Resolves with its exit. */
  stop(timeoutMs?: number): Promise<[number | null, NodeJS.Signals | null]>;
}

/** `logFile`: where the whole output also goes (the services' logs, for a failure's diagnosis). */
export function startCluster(extraArgs: string[] = [], logFile?: string): ClusterStart {
  const start = spawn(process.execPath, [join(ROOT, 'infra/local/start.ts'), '--cluster', ...extraArgs], {
    cwd: ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (d: Buffer) => {
    output += d.toString();
    // Bounded: a long run under load logs a lot.
    if (output.length > 2_000_000) output = output.slice(-1_000_000);
  };
  start.stdout.on('data', keep);
  start.stderr.on('data', keep);
  if (logFile) {
    const file = createWriteStream(logFile);
    start.stdout.pipe(file);
    start.stderr.pipe(file);
  }
  const exited = once(start, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  let running = true;
  void exited.then(() => (running = false));

  async function waitNode(port: number, until: number): Promise<void> {
    while (Date.now() < until) {
      if (!running) throw new Error('start:cluster exited before the API nodes were ready');
      try {
        if ((await fetch(`http://127.0.0.1:${port}/readyz`)).ok) return;
      } catch {
        // not listening yet
      }
      await sleep(500);
    }
    throw new Error(`API node :${port} not ready in time`);
  }

  return {
    pid: start.pid!,
    running: () => running,
    tail: (lines = 40) => output.split('\n').slice(-lines).join('\n'),
    async waitReady(timeoutMs = 240_000) {
      const until = Date.now() + timeoutMs;
      await Promise.all(CLUSTER_API_PORTS.map((p) => waitNode(p, until)));
    },
    async stop(timeoutMs = 120_000) {
      if (running) process.kill(-start.pid!, 'SIGINT');
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), timeoutMs)));
      const result = await Promise.race([exited, timeout]);
      clearTimeout(timer);
      if (result === 'timeout') {
        process.kill(-start.pid!, 'SIGKILL');
        throw new Error(`start:cluster did not stop within ${timeoutMs / 1000} s of SIGINT`);
      }
      return result;
    },
  };
}
