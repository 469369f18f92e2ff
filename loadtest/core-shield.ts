/**
 * Gives a measured process a core of its own for a latency figure: the servers it talks to
 * (found by the ports they listen on) and the load generator go to the other cores, and come back
 * after. Without it Redis, Kafka and ClickHouse threads preempt the measured node on its pinned
 * core and their scheduling shows up in its p99. Linux only (`ss`, `taskset`).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';

/** Pids of the processes listening on `ports`, from `ss -ltnp`. */
export function listeningPids(ports: number[]): number[] {
  const out = execFileSync('ss', ['-ltnpH'], { encoding: 'utf8' });
  const pids = new Set<number>();
  for (const line of out.split('\n')) {
    const port = Number(/:(\d+)\s/.exec(line)?.[1]);
    if (!ports.includes(port)) continue;
    for (const m of line.matchAll(/pid=(\d+)/g)) pids.add(Number(m[1]));
  }
  return [...pids];
}

/** Moves every thread of `pids` off `core`; returns the undo. */
export function shieldCore(core: number, pids: number[]): () => void {
  const all = `0-${availableParallelism() - 1}`;
  const others = Array.from({ length: availableParallelism() }, (_, i) => i)
    .filter((c) => c !== core)
    .join(',');
  const set = (cpus: string) => {
    for (const pid of pids) spawnSync('taskset', ['-a', '-p', '-c', cpus, String(pid)], { stdio: 'ignore' });
  };
  set(others);
  return () => set(all);
}

/** The ports of the stack's servers named in the config's URLs. */
export function stackPorts(urls: string[]): number[] {
  return urls
    .flatMap((u) => u.split(','))
    .map((u) => Number(/:(\d+)(?:\/|$)/.exec(u)?.[1]))
    .filter((p) => p > 0);
}

/** Pids of the stack's servers a config names (both Redis servers, Kafka, ClickHouse), to shield a core from. */
export function stackPids(cfg: {
  REDIS_URL: string;
  EXPLAIN_REDIS_URL: string;
  KAFKA_BROKERS: string[];
  CLICKHOUSE_URL: string;
}): number[] {
  return listeningPids(
    stackPorts([cfg.REDIS_URL, cfg.EXPLAIN_REDIS_URL, cfg.KAFKA_BROKERS.join(','), cfg.CLICKHOUSE_URL]),
  );
}
