/**
 * One refresh of one capability: fetch its feeds (from their publishers where configured, with
 * conditional requests: shared/capabilities/source-fetch.ts), skip if unchanged, build and validate, refuse an empty
 * or suspiciously shrunk result, publish a new version. Only the refresher runs it: its
 * jobs on their schedules, and `npm run refresh -- --missing` once for a fresh deployment. API
 * nodes never build a snapshot; they load what this publishes.
 *
 * A failure is recorded (health and metrics show it) and rethrown (BullMQ retries with backoff);
 * the current snapshot is never touched by a failed refresh.
 */
import { createHash } from 'node:crypto';
import type { Logger } from '../../shared/logger.ts';
import { dataAsOf } from '../../shared/capabilities/feeds/as-of.ts';
import { FeedError } from '../../shared/capabilities/feeds/feed-error.ts';
import type { Capability } from '../../shared/capabilities/model.ts';
import type { FeedName } from '../../shared/capabilities/registry.ts';
import { SNAPSHOT_FORMAT, type FeedFiles } from '../../shared/capabilities/snapshot-format.ts';
import { fetchSourceFeed, type FetchedFeed } from '../../shared/capabilities/source-fetch.ts';
import type { SnapshotMeta, SnapshotStore } from '../../shared/capabilities/store.ts';
import { errorMessage } from '../../shared/error-message.ts';
import type { RedisClient } from '../../shared/clients/redis.ts';
import { publishCounted } from './publish-counted.ts';

export interface RefreshDeps {
  store: SnapshotStore;
  locations: Record<FeedName, string>;
  timeoutMs: number;
  /** Largest accepted drop in entries against the current snapshot, as a fraction. */
  maxShrink: number;
  log: Logger;
  /** Where a capability with no feed (network velocity) reads what the score stream counted: the ledger Redis. */
  counted?: RedisClient;
}

export type RefreshOutcome =
  { outcome: 'published'; version: string; entries: number } | { outcome: 'unchanged'; version: string };

/**
 * The digest of what the feeds served (each feed's identity: source-fetch.ts). `naming`: what else
 * decides the built data (the ledger's subject keys), so a change of it rebuilds.
 */
function digestOf(fetched: readonly (readonly [FeedName, FetchedFeed])[], naming: string): string {
  const hash = createHash('sha256').update(naming);
  for (const [feed, f] of [...fetched].sort(([a], [b]) => a.localeCompare(b)))
    hash.update(`${feed}:${f.identity};`);
  return hash.digest('hex');
}

/** Refuses an empty result, or one that lost more than `maxShrink` of the current entries. */
export function checkSize(entries: number, current: SnapshotMeta | undefined, maxShrink: number): void {
  if (entries === 0) throw new FeedError('no entries');
  if (current && entries < current.entries * (1 - maxShrink)) {
    throw new FeedError(
      `shrank from ${current.entries} to ${entries} entries (more than ${Math.round(maxShrink * 100)} %); kept the current snapshot`,
    );
  }
}

export async function refreshCapability(cap: Capability, deps: RefreshDeps): Promise<RefreshOutcome> {
  // No feed to fetch: its data is counted from the score stream (publish-counted.ts).
  if (cap.def.feeds.length === 0) return publishCounted(cap, deps);
  const { store } = deps;
  const { def } = cap;
  const started = performance.now();
  try {
    const [current, known] = await Promise.all([store.current(def.name), store.sourceState(def.name)]);
    const fetchAll = (knownState: typeof known) =>
      Promise.all(
        def.feeds.map(
          async (f) =>
            [
              f,
              await fetchSourceFeed(f, deps.locations[f] ?? '', {
                timeoutMs: deps.timeoutMs,
                known: knownState,
                now: new Date(),
              }),
            ] as const,
        ),
      );
    let fetched = await fetchAll(known);
    const digest = digestOf(fetched, cap.kind === 'live' ? store.ledgerNaming : '');
    const sourceState = () => Object.assign({}, ...fetched.map(([, f]) => f.state)) as typeof known;
    if (
      current &&
      current.digest === digest &&
      current.format === SNAPSHOT_FORMAT &&
      // A version built before snapshots were dated is rebuilt once, to carry its date.
      current.data_as_of !== undefined
    ) {
      await store.saveSourceState(def.name, sourceState());
      await store.confirm(def.name);
      return { outcome: 'unchanged', version: current.version };
    }
    // Everything answered 304 but the snapshot must be rebuilt anyway (a new snapshot format, a
    // rotated ledger secret): fetch it whole.
    if (fetched.some(([, f]) => f.files === undefined && !f.absent)) fetched = await fetchAll({});
    const present = fetched.filter(([, f]) => !f.absent);
    const files: FeedFiles = Object.fromEntries(present.map(([feed, f]) => [feed, f.files!]));
    // A feed that does not say how old its data is is refused.
    const asOf = dataAsOf(
      present.map(([feed]) => feed),
      files,
    ).toISOString();

    const builtAt = new Date();
    const version = `${builtAt.getTime()}-${digest.slice(0, 8)}`;
    const meta = (entries: number): SnapshotMeta => ({
      version,
      format: SNAPSHOT_FORMAT,
      digest,
      entries,
      records: entries,
      data_as_of: asOf,
      built_at: builtAt.toISOString(),
      ...(current ? { previous: current.version } : {}),
    });
    const built = cap.build(files);
    const { entries } = built;
    checkSize(entries, current, deps.maxShrink);
    await built.publish(store, meta(entries), current);
    await store.saveSourceState(def.name, sourceState());
    deps.log.info(
      { capability: def.name, version, entries, ms: Math.round(performance.now() - started) },
      'capability snapshot published',
    );
    return { outcome: 'published', version, entries };
  } catch (err) {
    const message = err instanceof FeedError ? err.message : `internal: ${errorMessage(err)}`;
    deps.log.warn({ capability: def.name, err: message }, 'capability refresh failed');
    await store.recordFailure(def.name, message).catch(() => undefined);
    throw err;
  }
}
