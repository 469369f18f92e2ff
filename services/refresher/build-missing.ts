/**
 * The first snapshots of a fresh deployment (or of a fresh CAPABILITY_KEY_PREFIX): builds, in
 * this process and with the refresher's own code, every capability Redis has no current version
 * of, and publishes it (the announcement reaches running nodes). API nodes never build snapshots;
 * `npm run refresh -- --missing` runs this before them, and the refresher's first scheduled runs
 * do the same work a little later. With `stale`, a capability whose last confirmed refresh is
 * older than its freshness limit or will be within STALE_SOON_MS, or whose version carries no
 * `data_as_of` (built before snapshots were dated), is built again too: a development stack
 * started hours ago (the ledger is stale after 2 h, Tor exits after 6 h) then serves fresh
 * snapshots without a running refresher, through a test run that takes minutes.
 */
import { capabilityModels } from '../../shared/capabilities/model.ts';
import { refreshCapability, type RefreshOutcome } from './refresh-capability.ts';
import { configuredCapabilities, isStale } from '../../shared/capabilities/registry.ts';
import { feedLocations } from '../../shared/capabilities/sources.ts';
import { SnapshotStore } from '../../shared/capabilities/store.ts';
import { SubjectKeys } from '../../shared/capabilities/subject-key.ts';
import { createRedis, durableRedis } from '../../shared/clients/redis.ts';
import type { Config } from '../../shared/config.ts';
import type { Logger } from '../../shared/logger.ts';
import { errorMessage } from '../../shared/error-message.ts';

/**
 * How far ahead `stale` looks: a snapshot that turns stale during the test suite that asked for
 * fresh ones (about ten minutes) would show as a degraded source in its later tests.
 */
const STALE_SOON_MS = 60 * 60 * 1000;

export type MissingResult = { capability: string } & (RefreshOutcome | { outcome: 'failed'; error: string });

/** One result per capability that had no snapshot (or a stale one, with `stale`); the others are left alone. */
export async function buildMissing(
  cfg: Config,
  log: Logger,
  opts: { stale?: boolean } = {},
): Promise<MissingResult[]> {
  const redis = createRedis(durableRedis(cfg), { connectionName: 'frs-refresh-missing', log });
  const ledger = cfg.LEDGER_REDIS_URL
    ? createRedis(cfg.LEDGER_REDIS_URL, { connectionName: 'frs-refresh-missing-ledger', log })
    : redis;
  try {
    const store = new SnapshotStore(redis, cfg.CAPABILITY_KEY_PREFIX, ledger, SubjectKeys.fromConfig(cfg));
    const caps = capabilityModels(configuredCapabilities(cfg));
    const current = await store.read(caps.map((c) => c.name));
    const deps = {
      store,
      locations: feedLocations(cfg),
      timeoutMs: cfg.FEED_TIMEOUT_MS,
      maxShrink: cfg.FEED_MAX_SHRINK,
      log,
      counted: ledger,
    };
    const results: MissingResult[] = [];
    // One at a time, as the refresher's worker runs them: the network snapshot alone is ~23 MB.
    const now = Date.now();
    for (const [i, cap] of caps.entries()) {
      const { meta, status } = current[i]!;
      const refreshedAt = status?.refreshed_at ? Date.parse(status.refreshed_at) : undefined;
      // A version built before snapshots were dated counts as stale: rebuilt, it carries its date.
      const stale =
        refreshedAt === undefined ||
        isStale(refreshedAt, cap.def.freshnessS, now + STALE_SOON_MS) ||
        meta?.data_as_of === undefined;
      if (meta && !(opts.stale && stale)) continue;
      try {
        results.push({ capability: cap.name, ...(await refreshCapability(cap, deps)) });
      } catch (err) {
        results.push({ capability: cap.name, outcome: 'failed', error: errorMessage(err) });
      }
    }
    return results;
  } finally {
    redis.disconnect();
    if (ledger !== redis) ledger.disconnect();
  }
}
