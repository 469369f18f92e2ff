import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const SCRIPT = 'infra/local/clickhouse-cluster.sh';
/** `<distributed_ddl><path>` of infra/local/clickhouse-cluster.sh: where ON CLUSTER tasks queue. */
const DDL_QUEUE = '/clickhouse/task_queue/ddl';
/** How long a test waits for ON CLUSTER statements queued before it to finish. */
const DDL_DRAIN_MS = 30_000;

/** The local 2-shard x 2-replica cluster of infra/local/clickhouse-cluster.sh. */
export interface ClusterUnderTest {
  /** The nodes' HTTP URLs, in the script's order (shard 1: nodes 1-2, shard 2: nodes 3-4). */
  urls: string[];
  /** Stops the cluster if this call started it; a cluster that was already up is left running. */
  release: () => Promise<void>;
}

export async function clusterUrls(): Promise<string[]> {
  return (await run('bash', [SCRIPT, 'urls'], { encoding: 'utf8' })).stdout.trim().split(',');
}

/** Whether every node of the cluster answers its ping. */
export async function clusterAnswers(urls: string[]): Promise<boolean> {
  const answers = await Promise.all(
    urls.map((u) =>
      fetch(`${u}/ping`, { signal: AbortSignal.timeout(1_000) }).then(
        (r) => r.ok,
        () => false,
      ),
    ),
  );
  return answers.every(Boolean);
}

export async function stopClickHouseCluster(): Promise<void> {
  await run('bash', [SCRIPT, 'down']);
}

/**
 * The pid of node `n` (1-4), from the script's pid file, for a test that pauses a node
 * (`kill -STOP`) to see what waits on it.
 */
export async function clusterNodePid(n: number): Promise<number> {
  const stack = process.env.FRS_STACK_DIR ?? join(import.meta.dirname, '..', '..', '.stack');
  return Number((await readFile(join(stack, 'ch-cluster', `ch${n}`, 'pid'), 'utf8')).trim());
}

/**
 * Starts the cluster unless it answers already; resolves with why not when it cannot within
 * `timeoutMs` (no ClickHouse or Java on the machine, ports taken), so a test can skip saying so.
 * Either way it returns once the DDL queue holds nothing unfinished (ddlQueueDrained), so a test's
 * ON CLUSTER statement never waits behind an earlier run's; when the queue stays busy it throws,
 * having stopped a cluster it started.
 */
export async function clickHouseCluster(timeoutMs: number): Promise<ClusterUnderTest | string> {
  const urls = await clusterUrls();
  if (await clusterAnswers(urls)) {
    await ddlQueueDrained(urls[0]!, DDL_DRAIN_MS);
    return { urls, release: async () => undefined };
  }
  try {
    await run('bash', [SCRIPT, 'up'], { timeout: timeoutMs, encoding: 'utf8' });
  } catch (err) {
    await stopClickHouseCluster().catch(() => undefined);
    return `the local ClickHouse cluster did not start in ${timeoutMs} ms: ${String(err).slice(0, 500)}`;
  }
  try {
    await ddlQueueDrained(urls[0]!, DDL_DRAIN_MS);
  } catch (err) {
    await stopClickHouseCluster().catch(() => undefined);
    throw err;
  }
  return { urls, release: stopClickHouseCluster };
}

async function zookeeper(url: string, path: string): Promise<{ name: string; value: string }[]> {
  const query = `SELECT name, value FROM system.zookeeper WHERE path = '${path}' FORMAT JSONEachRow`;
  const res = await fetch(url, { method: 'POST', body: query, signal: AbortSignal.timeout(5_000) });
  const text = await res.text();
  // 999 "No node": no ON CLUSTER statement was ever queued.
  if (!res.ok && /Code: 999\b.*No node/.test(text)) return [];
  if (!res.ok) throw new Error(`system.zookeeper ${path}: ${res.status} ${text.slice(0, 300)}`);
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { name: string; value: string });
}

export interface DdlTask {
  task: string;
  query: string;
  /** The hosts the task names that have not recorded it under `finished`. */
  waiting: string[];
}

/**
 * A task znode's value as ClickHouse 18.16 writes it (DDLLogEntry): `version: 1`, `query: …`,
 * `hosts: ['127%2E0%2E0%2E1:19131',…]`, `initiator: …`, one per line; the names under its
 * `finished` child are those host strings.
 */
export function parseDdlTask(value: string): { query: string; hosts: string[] } {
  const line = (key: string) =>
    value
      .split('\n')
      .find((l) => l.startsWith(`${key}: `))
      ?.slice(key.length + 2);
  const hosts = [...(line('hosts') ?? '').matchAll(/'((?:[^'\\]|\\.)*)'/g)].map((m) => m[1]!);
  return { query: line('query') ?? '', hosts };
}

/**
 * The ON CLUSTER tasks some host has not finished, read through system.zookeeper (ClickHouse 18.16
 * has no system.distributed_ddl_queue; that table came with 20.x).
 */
export async function unfinishedDdlTasks(url: string): Promise<DdlTask[]> {
  const tasks = await zookeeper(url, DDL_QUEUE);
  const unfinished: DdlTask[] = [];
  for (const { name, value } of tasks) {
    const { query, hosts } = parseDdlTask(value);
    const finished = new Set((await zookeeper(url, `${DDL_QUEUE}/${name}/finished`)).map((f) => f.name));
    const waiting = hosts.filter((h) => !finished.has(h));
    if (waiting.length > 0) unfinished.push({ task: name, query, waiting });
  }
  return unfinished.sort((a, b) => a.task.localeCompare(b.task));
}

/** Resolves once no ON CLUSTER task is unfinished; after `timeoutMs`, throws naming those left. */
export async function ddlQueueDrained(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const left = await unfinishedDdlTasks(url);
    if (left.length === 0) return;
    if (Date.now() >= deadline) {
      const named = left.map(
        (t) => `${t.task} (${t.query.slice(0, 120)}) waiting on ${t.waiting.join(', ')}`,
      );
      throw new Error(
        `the ClickHouse cluster's DDL queue still holds, after ${timeoutMs} ms: ${named.join('; ')}`,
      );
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}
