/**
 * The node's copy of every capability snapshot. It loads a new version when the refresher
 * announces one (pub/sub) or when a poll of the current versions finds one it missed, always off
 * the hot path, and swaps the whole set in one assignment: a request sees either the old or the
 * new snapshot, never a mix, and never waits for a load.
 */
import type { Redis } from 'ioredis';
import { capabilityStatus, type CapabilityStatus } from '../../../shared/capabilities/condition.ts';
import type { CapabilityDef, CapabilityName } from '../../../shared/capabilities/registry.ts';
import {
  decodeSnapshot,
  SNAPSHOT_FORMAT,
  type SnapshotData,
  type SnapshotName,
} from '../../../shared/capabilities/snapshots.ts';
import type { RefreshStatus, SnapshotMeta, SnapshotStore } from '../../../shared/capabilities/store.ts';
import type { Logger } from '../../../shared/logger.ts';

export interface CapabilityState {
  meta?: SnapshotMeta;
  status?: RefreshStatus;
  refreshedAtMs?: number;
  /** Why this node could not load the announced version (it keeps the one it has). */
  loadError?: string;
}

/** Immutable: replaced as a whole by each load. */
export interface Snapshots {
  data: Partial<SnapshotData>;
  /** The ledger version lookups read; undefined until one is known. */
  ledgerVersion?: string;
  states: Partial<Record<CapabilityName, CapabilityState>>;
}

export interface SnapshotCacheDeps {
  store: SnapshotStore;
  /** A connection of its own: once subscribed it can do nothing else. */
  subscriber: Redis;
  defs: readonly CapabilityDef[];
  pollMs: number;
  log: Logger;
  /** Builds and publishes a capability Redis has no snapshot of yet (a fresh deployment). */
  bootstrap: (def: CapabilityDef) => Promise<unknown>;
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

  /** Status of each capability from this node's view, at `nowMs`. */
  status(def: CapabilityDef, nowMs: number, snapshots = this.snapshots): CapabilityStatus {
    const state = snapshots.states[def.name];
    const present =
      def.kind === 'live'
        ? snapshots.ledgerVersion !== undefined
        : snapshots.data[def.name as SnapshotName] !== undefined;
    return capabilityStatus(def, { present, refreshedAtMs: state?.refreshedAtMs }, nowMs);
  }

  /**
   * Loads what Redis has; builds what it has not (so the first node of a fresh deployment does not
   * wait for the refresher); then follows announcements and polls. Never throws: a capability that
   * cannot be loaded stays missing and health says why.
   */
  async start(): Promise<void> {
    const { subscriber, store, log } = this.deps;
    subscriber.on('message', (channel: string) => {
      if (channel === store.channel) this.sync();
    });
    await subscriber
      .subscribe(store.channel)
      .catch((err) => log.warn({ err: String(err) }, 'no snapshot announcements'));
    await this.sync();
    const missing = this.deps.defs.filter((d) => !this.snapshots.states[d.name]?.meta);
    for (const def of missing) {
      await this.deps
        .bootstrap(def)
        .catch((err) =>
          log.warn({ capability: def.name, err: String(err) }, 'capability has no snapshot yet'),
        );
    }
    if (missing.length > 0) await this.sync();
    this.ready = true;
    this.timer = setInterval(() => this.sync(), this.deps.pollMs);
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
        await this.pass().catch((err) => this.deps.log.warn({ err: String(err) }, 'snapshot sync failed'));
      } while (this.rerun);
    })().finally(() => (this.running = undefined));
    return this.running;
  }

  private async pass(): Promise<void> {
    const { defs, store, log } = this.deps;
    const rows = await store.read(defs.map((d) => d.name));
    const before = this.snapshots;
    const data: Partial<SnapshotData> = { ...before.data };
    let ledgerVersion = before.ledgerVersion;
    const states: Snapshots['states'] = {};
    for (const [i, def] of defs.entries()) {
      const { meta, status } = rows[i]!;
      const held = before.states[def.name];
      const state: CapabilityState = { ...held, ...(status ? { status } : {}) };
      if (status?.refreshed_at) state.refreshedAtMs = Date.parse(status.refreshed_at);
      if (meta && meta.format === SNAPSHOT_FORMAT && meta.version !== held?.meta?.version) {
        try {
          if (def.kind === 'live') ledgerVersion = meta.version;
          else await this.load(def.name as SnapshotName, meta.version, data);
          state.meta = meta;
          delete state.loadError;
          log.info({ capability: def.name, version: meta.version }, 'capability snapshot loaded');
        } catch (err) {
          state.loadError = (err as Error).message;
          log.warn(
            { capability: def.name, version: meta.version, err: state.loadError },
            'snapshot not loaded',
          );
        }
      }
      states[def.name] = state;
    }
    // The swap: one assignment of a new, complete object.
    this.snapshots = { data, states, ...(ledgerVersion ? { ledgerVersion } : {}) };
  }

  private async load(name: SnapshotName, version: string, into: Partial<SnapshotData>): Promise<void> {
    const payload = await this.deps.store.blob(name, version);
    if (!payload) throw new Error(`version ${version} is gone from Redis`);
    (into as Record<SnapshotName, unknown>)[name] = decodeSnapshot(name, payload);
  }
}
