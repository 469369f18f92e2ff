import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serviceRedisEnv } from '../../infra/local/redis-users.ts';
import { SEED_MAX_DATA_AGE_S } from '../../infra/local/seed-data-age.ts';
import { createApiNode, type ApiNodeOptions } from '../../services/api/node.ts';
import { loadConfig } from '../../shared/config.ts';
import { createLogger } from '../../shared/logger.ts';
import { unlinkPrefix } from '../../infra/harness/feed-server.ts';
import { redis } from '../../infra/harness/fixtures.ts';
import { waitFor } from '../../infra/harness/processes.ts';
import { publishSnapshots } from '../../infra/harness/snapshots.ts';

/** An API node running inside the test process: what contract and controls tests talk to. */
export interface InProcessNode {
  url: string;
  port: number;
  stop: () => Promise<void>;
}

/**
 * Builds an API node in the test process on a free port (PORT=0) from the same config a real
 * node reads, with `env` on top, logged in to Redis as the API's ACL user (as `startApi` does),
 * and waits until it is ready. Tests about processes (signals, SIGKILL, faults) spawn real ones
 * instead (`startApi`).
 *
 * Each gets a journal folder of its own, removed at stop: on PORT=0 every in-process node would
 * otherwise journal in `<AUDIT_JOURNAL_DIR>/port-0`, whose lock allows one node at a time (two in
 * one test, or two test runs at once). Durability through the journal is the spawned fault tests'.
 */
export async function startNode(
  env: Record<string, string> = {},
  opts: ApiNodeOptions = {},
): Promise<InProcessNode> {
  // As serviceEnv: the seed samples' maximum data ages (infra/local/seed-data-age.ts).
  const journal = mkdtempSync(join(tmpdir(), 'frs-in-process-journal-'));
  const merged = {
    CAPABILITY_MAX_DATA_AGE_S: SEED_MAX_DATA_AGE_S,
    ...process.env,
    PORT: '0',
    AUDIT_JOURNAL_DIR: journal,
    ...env,
  };
  const cfg = loadConfig({ ...merged, ...serviceRedisEnv('api', merged) });
  const node = createApiNode(cfg, createLogger('api', process.env.TEST_LOG_LEVEL ?? 'warn'), opts);
  try {
    await node.start();
    await waitFor('in-process api /readyz', async () => (await fetch(`${node.url}/readyz`)).ok, 90_000);
  } catch (err) {
    await node.stop();
    rmSync(journal, { recursive: true, force: true });
    throw err;
  }
  return {
    url: node.url,
    port: node.port,
    stop: async () => {
      await node.stop();
      rmSync(journal, { recursive: true, force: true });
    },
  };
}

/** A clock the test moves by hand: every node given it sees the same instant. */
export class TestClock {
  /** Starts at the beginning of the current wall-clock second, so a window has a full second ahead. */
  private ms = Math.floor(Date.now() / 1000) * 1000;
  readonly now = (): number => this.ms;
  advance(ms: number): void {
    this.ms += ms;
  }
}

/**
 * An in-process node on capability snapshots of its own: published under a key prefix of the
 * test's (`label`), from the checked-in feeds or the `FEED_*` files in `env`, and removed at stop.
 * What a test of the scoring path needs when it must not depend on the shared snapshots.
 */
export async function startNodeWithSnapshots(
  label: string,
  env: Record<string, string> = {},
): Promise<InProcessNode> {
  const prefix = `frs:cap:${label}-${process.pid}`;
  const withPrefix = { CAPABILITY_KEY_PREFIX: prefix, ...env };
  await publishSnapshots(withPrefix);
  const node = await startNode(withPrefix);
  return {
    ...node,
    stop: async () => {
      await node.stop();
      const r = redis();
      await unlinkPrefix(r, prefix);
      r.disconnect();
    },
  };
}
