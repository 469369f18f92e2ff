/**
 * The refresh of a capability with no feed: network velocity, whose data is the score stream as
 * the audit sink counted it in Redis (shared/capabilities/network-velocity/counter.ts). Runs every
 * few seconds (registry.ts COUNTED_REFRESH_S): a table whose buckets moved is published at once; an
 * unchanged one is confirmed, and republished once a minute so that its counting time, which
 * decides which windows a node still reads, stays recent.
 */
import {
  velocitySnapshot,
  type CountedSnapshot,
} from '../../shared/capabilities/network-velocity/publish.ts';
import type { Capability } from '../../shared/capabilities/model.ts';
import { SNAPSHOT_FORMAT } from '../../shared/capabilities/snapshot-format.ts';
import type { CapabilityName } from '../../shared/capabilities/registry.ts';
import type { SnapshotMeta } from '../../shared/capabilities/store.ts';
import type { RedisClient } from '../../shared/clients/redis.ts';
import type { SnapshotStore } from '../../shared/capabilities/store.ts';
import { errorMessage } from '../../shared/error-message.ts';
import type { Logger } from '../../shared/logger.ts';

/** What it needs of refresh-capability.ts's deps (not imported from there: that module calls this one). */
interface CountedDeps {
  store: SnapshotStore;
  log: Logger;
  counted?: RedisClient;
}

type Outcome =
  { outcome: 'published'; version: string; entries: number } | { outcome: 'unchanged'; version: string };

/** An unchanged table is republished this often, to move its counting time. */
const REPUBLISH_MS = 60_000;

export async function publishCounted(cap: Capability, deps: CountedDeps): Promise<Outcome> {
  const { store } = deps;
  const name = cap.def.name;
  try {
    if (!deps.counted) throw new Error('no Redis to read the counts from');
    const now = Date.now();
    const [current, built] = await Promise.all([
      store.current(name),
      velocitySnapshot(deps.counted, store.prefix, now),
    ]);
    if (
      current &&
      current.digest === built.digest &&
      current.format === SNAPSHOT_FORMAT &&
      now - Date.parse(current.built_at) < REPUBLISH_MS
    ) {
      await store.confirm(name);
      return { outcome: 'unchanged', version: current.version };
    }
    const version = await publishCountedTable(store, name, built, current, now);
    return { outcome: 'published', version, entries: built.entries };
  } catch (err) {
    const message = `internal: ${errorMessage(err)}`;
    deps.log.warn({ capability: name, err: message }, 'capability refresh failed');
    await store.recordFailure(name, message).catch(() => undefined);
    throw err;
  }
}

/** Publishes a counted table built at `now` over `current`; returns its version. */
export async function publishCountedTable(
  store: SnapshotStore,
  name: CapabilityName,
  built: CountedSnapshot,
  current: SnapshotMeta | undefined,
  now: number,
): Promise<string> {
  const at = new Date(now).toISOString();
  const meta: SnapshotMeta = {
    version: `${now}-${built.digest.slice(0, 8)}`,
    format: SNAPSHOT_FORMAT,
    digest: built.digest,
    entries: built.entries,
    records: built.entries,
    // Counted up to now: the data is as old as this build.
    data_as_of: at,
    built_at: at,
    ...(current ? { previous: current.version } : {}),
  };
  await store.publishBlob(name, meta, built.payload, current);
  return meta.version;
}
