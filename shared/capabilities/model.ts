/**
 * The capability model: what differs between a snapshot capability and the live one lives here,
 * and nowhere else. Callers (the refresh, a node's snapshot cache, the scorer, health) hold a
 * `Capability` and ask it; none of them branches on the kind.
 *
 * - `SnapshotCapability`: the refresher builds its feeds into a binary blob; a node loads and
 *   decodes the blob and serves lookups from memory. It is present when the node holds the data.
 * - `LiveCapability` (the reputation ledger): the refresher writes its feed into a Redis hash; a
 *   node only learns the version and looks subjects up per request behind a breaker. It is present
 *   when the node knows a version; its breaker can make it unavailable or degraded in health.
 */
import type { ScoringSubject } from '../vocabulary/scoring-input.ts';
import { capabilityStatus, type CapabilityStatus } from './condition.ts';
import { FeedError } from './feeds/feed-error.ts';
import { parseReputationFeed } from './feeds/reputation-feed.ts';
import type { CapabilityDef, CapabilityName } from './registry.ts';
import type { FeedFiles } from './snapshot-format.ts';
import { buildSnapshot, decodeSnapshot, type SnapshotData, type SnapshotName } from './snapshots.ts';
import type { SnapshotMeta, SnapshotStore } from './store.ts';
import { errorMessage } from '../error-message.ts';

export type BreakerState = 'closed' | 'open' | 'half_open';

/** What a node holds of its capabilities: decoded snapshots, and the ledger version it reads. */
export interface Holdings {
  data: Partial<SnapshotData>;
  /** The ledger version lookups read; undefined until one is known. */
  ledgerVersion?: string;
}

/** A refresh's parsed and validated result, ready to be published under a version. */
export interface Built {
  entries: number;
  publish(store: SnapshotStore, meta: SnapshotMeta, replaced: SnapshotMeta | undefined): Promise<void>;
}

abstract class BaseCapability {
  readonly def: CapabilityDef;
  readonly name: CapabilityName;
  abstract readonly kind: CapabilityDef['kind'];
  /**
   * Whether the scorer names this capability in the evidence's `unavailable` set when it cannot
   * answer. A live lookup's own answer already says `unavailable`, so it does not.
   */
  abstract readonly marksEvidenceUnavailable: boolean;

  constructor(def: CapabilityDef) {
    this.def = def;
    this.name = def.name;
  }

  /** Refresher: parses and validates the fetched feeds (throws a FeedError on bad input). */
  abstract build(files: FeedFiles): Built;

  /** Node: loads the published version `meta` into `into` (the holdings being assembled). */
  abstract load(store: SnapshotStore, meta: SnapshotMeta, into: Holdings): Promise<void>;

  /** Node: whether `held` lets this capability answer at all. */
  abstract present(held: Holdings): boolean;

  /**
   * Whether a request about `subject` consults this capability; `lookedUp` says whether the live
   * lookup ran for it (the caller's tier includes the ledger).
   */
  abstract consulted(subject: ScoringSubject, lookedUp: boolean): boolean;

  /** How well this node can answer, from what it holds; the one rule scorer and health share. */
  status(
    held: Holdings,
    refreshedAtMs: number | undefined,
    nowMs: number,
    dataAsOfMs?: number,
  ): CapabilityStatus {
    return capabilityStatus(
      this.def,
      { present: this.present(held), refreshedAtMs, ...(dataAsOfMs !== undefined ? { dataAsOfMs } : {}) },
      nowMs,
    );
  }

  /** What health reports: the status, adjusted by anything beyond the holdings (a breaker). */
  serving(status: CapabilityStatus): { status: CapabilityStatus; breaker?: BreakerState } {
    return { status };
  }

  protected subjectMatches(subject: ScoringSubject): boolean {
    if (this.def.subject === 'phone') return subject.phone_number !== undefined;
    if (this.def.subject === 'ip') return subject.ip_address !== undefined;
    return true;
  }
}

export class SnapshotCapability extends BaseCapability {
  readonly kind = 'snapshot' as const;
  readonly marksEvidenceUnavailable = true;
  private readonly snapshot: SnapshotName;

  constructor(def: CapabilityDef) {
    super(def);
    this.snapshot = def.name as SnapshotName;
  }

  build(files: FeedFiles): Built {
    const { entries, payload } = buildSnapshot(this.snapshot, files);
    return {
      entries,
      publish: (store, meta, replaced) => store.publishBlob(this.name, meta, payload, replaced),
    };
  }

  async load(store: SnapshotStore, meta: SnapshotMeta, into: Holdings): Promise<void> {
    const payload = await store.blob(this.name, meta.version);
    if (!payload) throw new Error(`version ${meta.version} is gone from Redis`);
    (into.data as Record<SnapshotName, unknown>)[this.snapshot] = decodeSnapshot(this.snapshot, payload);
  }

  present(held: Holdings): boolean {
    return held.data[this.snapshot] !== undefined;
  }

  consulted(subject: ScoringSubject): boolean {
    return this.subjectMatches(subject);
  }
}

export class LiveCapability extends BaseCapability {
  readonly kind = 'live' as const;
  readonly marksEvidenceUnavailable = false;
  private readonly breaker: () => BreakerState;

  /** `breaker`: the state of the breaker its lookups go through (a refresher has none). */
  constructor(def: CapabilityDef, breaker: () => BreakerState = () => 'closed') {
    super(def);
    this.breaker = breaker;
  }

  build(files: FeedFiles): Built {
    const reports = parseReputation(files);
    return {
      entries: reports.size,
      publish: (store, meta, replaced) => store.publishLedger(meta, reports, replaced),
    };
  }

  /** The ledger stays in Redis: a node only learns which version to look up. */
  async load(_store: SnapshotStore, meta: SnapshotMeta, into: Holdings): Promise<void> {
    into.ledgerVersion = meta.version;
  }

  present(held: Holdings): boolean {
    return held.ledgerVersion !== undefined;
  }

  consulted(subject: ScoringSubject, lookedUp: boolean): boolean {
    return lookedUp && this.subjectMatches(subject);
  }

  /** An open breaker answers nothing; a half-open one lets trial lookups through. */
  override serving(status: CapabilityStatus): { status: CapabilityStatus; breaker: BreakerState } {
    const breaker = this.breaker();
    if (breaker === 'open') return { status: 'unavailable', breaker };
    if (breaker === 'half_open' && status === 'ok') return { status: 'degraded', breaker };
    return { status, breaker };
  }
}

export type Capability = SnapshotCapability | LiveCapability;

export interface ModelOptions {
  /** The ledger breaker's state, on an API node. */
  breaker?: () => BreakerState;
}

/** The model of each registry entry (with this deployment's overrides applied). */
export function capabilityModels(defs: readonly CapabilityDef[], opts: ModelOptions = {}): Capability[] {
  return defs.map((def) =>
    def.kind === 'snapshot' ? new SnapshotCapability(def) : new LiveCapability(def, opts.breaker),
  );
}

function parseReputation(files: FeedFiles): Map<string, number> {
  const bytes = files.reputation?.get('');
  if (!bytes) throw new FeedError('reputation: file missing');
  try {
    return parseReputationFeed(bytes);
  } catch (err) {
    throw new FeedError(`reputation: ${errorMessage(err)}`);
  }
}
