import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createKafka } from '../../shared/clients/kafka.ts';
import { waitFor } from '../../infra/harness/wait.ts';

const run = promisify(execFile);
const SCRIPT = 'infra/local/kafka-cluster.sh';

/** The local three-broker cluster of infra/local/kafka-cluster.sh. */
export interface KafkaClusterUnderTest {
  brokers: string[];
  /** SIGKILLs one broker (by its node id), as a crash would end it, and waits until it is gone. */
  kill: (nodeId: number) => Promise<void>;
  /** Starts the brokers that are down again. */
  revive: () => Promise<void>;
  /** Stops the cluster if this call started it; one that was already up is left running. */
  release: () => Promise<void>;
}

async function reachable(brokers: string[]): Promise<boolean> {
  const admin = createKafka(brokers, 'frs-test-probe', { retry: { retries: 0 } }).admin();
  try {
    await admin.connect();
    const { brokers: known } = await admin.describeCluster();
    return known.length === brokers.length;
  } catch {
    return false;
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

/**
 * Starts the cluster unless all of its brokers answer already; resolves with why not when it
 * cannot within `timeoutMs`, so a test can skip saying so.
 */
export async function kafkaCluster(timeoutMs: number): Promise<KafkaClusterUnderTest | string> {
  const brokers = (await run('bash', [SCRIPT, 'brokers'], { encoding: 'utf8' })).stdout.trim().split(',');
  const wasUp = await reachable(brokers);
  if (!wasUp) {
    try {
      await run('bash', [SCRIPT, 'up'], { timeout: timeoutMs, encoding: 'utf8' });
    } catch (err) {
      await run('bash', [SCRIPT, 'down']).catch(() => undefined);
      return `the local Kafka cluster did not start in ${timeoutMs} ms: ${String(err).slice(0, 500)}`;
    }
  }
  const dir = join(process.env.FRS_STACK_DIR ?? join(import.meta.dirname, '../../.stack'), 'kafka-cluster');
  return {
    brokers,
    kill: async (nodeId) => {
      const pid = Number(readFileSync(join(dir, `kafka${nodeId}`, 'pid'), 'utf8'));
      process.kill(pid, 'SIGKILL');
      // Until the process is gone: the script takes a live pid for a running broker.
      await waitFor(`broker ${nodeId} gone`, async () => {
        try {
          process.kill(pid, 0);
          return false;
        } catch {
          return true;
        }
      });
    },
    revive: async () => {
      await run('bash', [SCRIPT, 'up'], { timeout: timeoutMs });
    },
    release: async () => {
      if (!wasUp) await run('bash', [SCRIPT, 'down']);
    },
  };
}
