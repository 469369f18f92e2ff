import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);
const SCRIPT = 'infra/local/clickhouse-cluster.sh';

/** The local 2-shard x 2-replica cluster of infra/local/clickhouse-cluster.sh. */
export interface ClusterUnderTest {
  /** The nodes' HTTP URLs, in the script's order (shard 1: nodes 1-2, shard 2: nodes 3-4). */
  urls: string[];
  /** Stops the cluster if this call started it; a cluster that was already up is left running. */
  release: () => Promise<void>;
}

async function up(urls: string[]): Promise<boolean> {
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

/**
 * Starts the cluster unless it answers already; resolves with why not when it cannot within
 * `timeoutMs` (no ClickHouse or Java on the machine, ports taken), so a test can skip saying so.
 */
export async function clickHouseCluster(timeoutMs: number): Promise<ClusterUnderTest | string> {
  const urls = (await run('bash', [SCRIPT, 'urls'], { encoding: 'utf8' })).stdout.trim().split(',');
  if (await up(urls)) return { urls, release: async () => undefined };
  try {
    await run('bash', [SCRIPT, 'up'], { timeout: timeoutMs, encoding: 'utf8' });
  } catch (err) {
    await run('bash', [SCRIPT, 'down']).catch(() => undefined);
    return `the local ClickHouse cluster did not start in ${timeoutMs} ms: ${String(err).slice(0, 500)}`;
  }
  return {
    urls,
    release: async () => {
      await run('bash', [SCRIPT, 'down']);
    },
  };
}
