/**
 * The node's copy of every capability snapshot. It loads a new version when the refresher
 * announces one (pub/sub) or when a poll of the current versions finds one it missed, always off
 * the hot path, and swaps the whole set in one assignment: a request sees either the old or the
 * new snapshot, never a mix, and never waits for a load.
 *
 * It only reads: a capability Redis has no snapshot of stays missing (health says so) until the
 * refresher publishes one, which the announcement brings here.
 */
import type { RedisClient } from '../../../shared/clients/redis.ts';
import {
  loadCorrections,
  type Corrections,
  type CorrectionStore,
} from '../../../shared/capabilities/corrections.ts';
import { dataStale, type CapabilityStatus } from '../../../shared/capabilities/condition.ts';
import type { Capability, Holdings } from '../../../shared/capabilities/model.ts';
import type { CapabilityName } from '../../../shared/capabilities/registry.ts';
import { SNAPSHOT_FORMAT } from '../../../shared/capabilities/snapshot-format.ts';
import type { RefreshStatus, SnapshotMeta, SnapshotStore } from '../../../shared/capabilities/store.ts';
import type { Logger } from '../../../shared/logger.ts';
import { errorMessage } from '../../../shared/error-message.ts';

export interface CapabilityState {
  meta?: SnapshotMeta;
  status?: RefreshStatus;
  refreshedAtMs?: number;
  /** The loaded version's `data_as_of`, parsed; undefined when it does not say. */
  dataAsOfMs?: number;
  /** Why this node could not load the announced version (it keeps the one it has). */
  loadError?: string;
}

/** Immutable: replaced as a whole by each load. */
export interface Snapshots extends Holdings {
  states: Partial<Record<CapabilityName, CapabilityState>>;
  /** The operator corrections in force: not part of any snapshot, so a refresh leaves them. */
  corrections?: Corrections;
}

export interface SnapshotCacheDeps {
  store: SnapshotStore;
  /** A connection of its own: once subscribed it can do nothing else. */
  subscriber: RedisClient;
  capabilities: readonly Capability[];
  /** Operator corrections, followed on the same announcements and poll as the snapshots. */
  corrections?: CorrectionStore;
  pollMs: number;
  log: Logger;
  /**
   * Builds what lookups derive from newly loaded snapshots (an index, a summary) before the swap,
   * so the first requests after it do not; it should yield the loop between slices of its work.
   */
  prepare?: (next: Holdings) => Promise<void>;
}

export class SnapshotCache {
  private snapshots: Snapshots = { data: {}, states: {} };
  private readonly deps: SnapshotCacheDeps;
  private running: Promise<void> | undefined;
  private rerun = false;
  private timer: NodeJS.Timeout | undefined;
  /** True once the first load attempt of every capability has finished, whatever its outcome. */
  ready = false;

  constructor(deps: SnapshotCacheDeps) {
    this.deps = deps;
  }

  get current(): Snapshots {
    return this.snapshots;
  }

  /** Status of a capability from this node's view, at `nowMs`. */
  status(cap: Capability, nowMs: number, snapshots = this.snapshots): CapabilityStatus {
    const state = snapshots.states[cap.name];
    return cap.status(snapshots, state?.refreshedAtMs, nowMs, state?.dataAsOfMs);
  }

  /** Whether the data this node holds of `cap` is older than its maximum data age. */
  dataStale(cap: Capability, nowMs: number, snapshots = this.snapshots): boolean {
    return dataStale(cap.def, snapshots.states[cap.name]?.dataAsOfMs, nowMs);
  }

  /**
   * Loads what Redis has, then follows announcements and polls. Never throws: a capability that
   * has no snapshot yet, or cannot be loaded, stays missing and health says why.
   */
  async start(): Promise<void> {
    const { subscriber, store, log } = this.deps;
    subscriber.on('message', (channel: string) => {
      // sync() logs its own failures and never rejects.
      if (channel === store.channel) void this.sync();
    });
    await subscriber.subscribe(store.channel).catch((err) => log.warn({ err }, 'no snapshot announcements'));
    await this.sync();
    const missing = this.deps.capabilities.filter((c) => !this.snapshots.states[c.name]?.meta);
    if (missing.length > 0) {
      log.warn(
        { capabilities: missing.map((c) => c.name) },
        'no snapshot published yet: answering without these until the refresher publishes them',
      );
    }
    this.ready = true;
    this.timer = setInterval(() => void this.sync(), this.deps.pollMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** Brings the node up to date; concurrent calls coalesce into one more pass. */
  sync(): Promise<void> {
    if (this.running) {
      this.rerun = true;
      return this.running;
    }
    this.running = (async () => {
      do {
        this.rerun = false;
        await this.pass().catch((err) => this.deps.log.warn({ err }, 'snapshot sync failed'));
      } while (this.rerun);
    })().finally(() => (this.running = undefined));
    return this.running;
  }

  private async pass(): Promise<void> {
    const { capabilities, store, log } = this.deps;
    const rows = await store.read(capabilities.map((c) => c.name));
    const before = this.snapshots;
    const next: Holdings = {
      data: { ...before.data },
      ...(before.ledgerVersion !== undefined ? { ledgerVersion: before.ledgerVersion } : {}),
    };
    const states: Snapshots['states'] = {};
    let loaded = false;
    for (const [i, cap] of capabilities.entries()) {
      const { meta, status } = rows[i]!;
      const held = before.states[cap.name];
      const state: CapabilityState = { ...held, ...(status ? { status } : {}) };
      if (status?.refreshed_at) state.refreshedAtMs = Date.parse(status.refreshed_at);
      if (meta && meta.format === SNAPSHOT_FORMAT && meta.version !== held?.meta?.version) {
        try {
          await cap.load(store, meta, next);
          state.meta = meta;
          if (meta.data_as_of) state.dataAsOfMs = Date.parse(meta.data_as_of);
          else delete state.dataAsOfMs;
          delete state.loadError;
          loaded = true;
          log.info({ capability: cap.name, version: meta.version }, 'capability snapshot loaded');
        } catch (err) {
          state.loadError = errorMessage(err);
          log.warn(
            { capability: cap.name, version: meta.version, err: state.loadError },
            'snapshot not loaded',
          );
        }
      }
      states[cap.name] = state;
    }
    if (loaded && this.deps.prepare)
      await this.deps.prepare(next).catch((err) => log.warn({ err }, 'derived lookups not prepared'));
    const corrections = await this.correctionsAfter(before.corrections);
    // The swap: one assignment of a new, complete object.
    this.snapshots = { ...next, states, ...(corrections ? { corrections } : {}) };
  }

  /** The corrections to serve next: the held ones when Redis cannot say. */
  private async correctionsAfter(held: Corrections | undefined): Promise<Corrections | undefined> {
    const store = this.deps.corrections;
    if (!store) return undefined;
    try {
      const loaded = await loadCorrections(store, held);
      if (loaded && loaded !== held)
        this.deps.log.info({ version: loaded.version }, 'operator corrections loaded');
      return loaded;
    } catch (err) {
      this.deps.log.warn({ err }, 'operator corrections not loaded');
      return held;
    }
  }
}
