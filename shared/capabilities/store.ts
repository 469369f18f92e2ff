/**
 * Where capability snapshots live in Redis and how their versions are announced.
 *
 *   {prefix}:current:{<capability>}        JSON SnapshotMeta of the version nodes should serve
 *   {prefix}:status:{<capability>}         JSON RefreshStatus: last confirmation and last failure
 *   {prefix}:blob:{<capability>}:<version> the snapshot's binary form (snapshot capabilities)
 *   {prefix}:status:{<capability>}:sources JSON: per source location, the publisher's ETag and
 *                                        Last-Modified and the digest of what it last served
 *   {prefix}:ledger:{version}            hash of subject key (keyed HMAC) -> reports (in the ledger Redis)
 *   {prefix}:announce                    pub/sub channel; the message is the capability's name
 *
 * A node that misses an announcement catches up by polling the current and status keys. Only the
 * current and the previous version are kept: a node still loading the previous one finds it. The
 * capability's name in braces is a hash tag: a capability's keys, written together in one
 * transaction, share one slot of a Redis Cluster (docs/scale-out.md).
 */
import type { SubjectKeys } from './subject-key.ts';
import type { RedisClient } from '../clients/redis.ts';
import type { CapabilityName } from './registry.ts';
import type { LocationState } from './source-fetch.ts';
import { reputationLedger } from './reputation-ledger/index.ts';

export interface SnapshotMeta {
  version: string;
  format: number;
  /** SHA-256 of the feeds it was built from: an unchanged source makes no new version. */
  digest: string;
  entries: number;
  /** Records in the data (the same count as `entries`; the name health reports). Absent before snapshots were dated. */
  records?: number;
  /**
   * When the data itself was taken (RFC 3339: the feed's `# as-of:` header or the package's date,
   * the oldest of its feeds'), not when it was fetched or built. Absent before snapshots were dated.
   */
  data_as_of?: string;
  built_at: string;
  previous?: string;
}

export interface RefreshStatus {
  /** Last time the source was fetched and validated (whether or not it had changed). */
  refreshed_at?: string;
  last_error?: string;
  last_error_at?: string;
  consecutive_failures: number;
}

/** Bytes of a snapshot blob read per command (see `SnapshotStore.blob`). */
export const BLOB_SLICE_BYTES = 1 << 20;

export class SnapshotStore {
  readonly prefix: string;
  /** Set once Redis refused the sliced read to this user: blobs are read whole from then on. */
  private wholeBlobs = false;
  private readonly redis: RedisClient;
  private readonly ledger: RedisClient;

  private readonly subjectKeys: SubjectKeys | undefined;

  /**
   * `ledger`: the Redis of the reputation ledger, which may be another server. `subjectKeys`: how
   * ledger subjects are named; only a publisher of the ledger (the refresher) needs it.
   */
  constructor(redis: RedisClient, prefix: string, ledger: RedisClient = redis, subjectKeys?: SubjectKeys) {
    this.redis = redis;
    this.prefix = prefix;
    this.ledger = ledger;
    this.subjectKeys = subjectKeys;
  }

  /** Names the subject keys the ledger is published under: a rotated secret makes the feed rebuild. */
  get ledgerNaming(): string {
    return this.subjectKeys?.fingerprint() ?? '';
  }

  get channel(): string {
    return `${this.prefix}:announce`;
  }

  currentKey = (name: CapabilityName) => `${this.prefix}:current:{${name}}`;
  statusKey = (name: CapabilityName) => `${this.prefix}:status:{${name}}`;
  /** Under `status:`, where the refresher's Redis user may already write (infra/ops/redis/users.acl). */
  sourcesKey = (name: CapabilityName) => `${this.prefix}:status:{${name}}:sources`;
  blobKey = (name: CapabilityName, version: string) => `${this.prefix}:blob:{${name}}:${version}`;
  ledgerKey = (version: string) => `${this.prefix}:ledger:${version}`;

  /**
   * Current meta and status of each capability: one MGET per capability (its two keys share a
   * slot), auto-pipelined into one round trip per server.
   */
  async read(names: readonly CapabilityName[]): Promise<{ meta?: SnapshotMeta; status?: RefreshStatus }[]> {
    return Promise.all(
      names.map(async (n) => {
        const [meta, status] = await this.redis.mget(this.currentKey(n), this.statusKey(n));
        return {
          ...(meta ? { meta: JSON.parse(meta) as SnapshotMeta } : {}),
          ...(status ? { status: JSON.parse(status) as RefreshStatus } : {}),
        };
      }),
    );
  }

  async current(name: CapabilityName): Promise<SnapshotMeta | undefined> {
    const raw = await this.redis.get(this.currentKey(name));
    return raw ? (JSON.parse(raw) as SnapshotMeta) : undefined;
  }

  /**
   * The blob (null when it is gone), read in slices of BLOB_SLICE_BYTES. With one GET the client
   * joins the whole 24 MB routing table into a fresh buffer in one event-loop turn of an API node
   * (20-90 ms on this machine class, page faults included) while requests wait; a slice is joined
   * in about a millisecond and requests run between slices. A version's blob never changes, so
   * slices of one version agree; one deleted meanwhile reads short and counts as gone. A Redis
   * user without STRLEN and GETRANGE (an ACL from before, infra/ops/redis/users.acl) gets one GET.
   */
  async blob(name: CapabilityName, version: string): Promise<Buffer | null> {
    const key = this.blobKey(name, version);
    if (this.wholeBlobs) return this.redis.getBuffer(key);
    try {
      return await this.blobInSlices(key);
    } catch (err) {
      if (!/NOPERM/.test(String(err))) throw err;
      this.wholeBlobs = true;
      return this.redis.getBuffer(key);
    }
  }

  private async blobInSlices(key: string): Promise<Buffer | null> {
    const size = await this.redis.strlen(key);
    if (size === 0) return null;
    // Memory of its own, so the decoder's typed arrays are aligned views of it (codec.ts).
    const out = Buffer.allocUnsafeSlow(size);
    for (let at = 0; at < size; at += BLOB_SLICE_BYTES) {
      const end = Math.min(size, at + BLOB_SLICE_BYTES);
      const slice = await this.redis.getrangeBuffer(key, at, end - 1);
      if (slice.length !== end - at) return null;
      slice.copy(out, at);
    }
    return out;
  }

  /** Stores the blob, makes it current, marks the source confirmed, announces; drops the version before the previous. */
  async publishBlob(name: CapabilityName, meta: SnapshotMeta, payload: Buffer, replaced?: SnapshotMeta) {
    await this.redis.set(this.blobKey(name, meta.version), payload);
    await this.makeCurrent(name, meta);
    if (replaced?.previous) await this.redis.unlink(this.blobKey(name, replaced.previous));
  }

  /**
   * Writes a ledger version in batches, each subject (canonical form) under its keyed HMAC, then
   * makes it current the same way.
   */
  async publishLedger(meta: SnapshotMeta, reports: Map<string, number>, replaced?: SnapshotMeta) {
    const keys = this.subjectKeys;
    if (!keys) throw new Error('publishing the ledger needs the subject keys (LEDGER_SUBJECT_SECRET)');
    const key = this.ledgerKey(meta.version);
    const batch = 5_000;
    let fields: (string | number)[] = [];
    for (const [canonical, count] of reports) {
      fields.push(keys.key(canonical), count);
      if (fields.length >= 2 * batch) {
        await this.ledger.hset(key, ...fields);
        fields = [];
      }
    }
    if (fields.length > 0) await this.ledger.hset(key, ...fields);
    await this.makeCurrent(reputationLedger.key, meta);
    if (replaced?.previous) await this.ledger.unlink(this.ledgerKey(replaced.previous));
  }

  private async makeCurrent(name: CapabilityName, meta: SnapshotMeta) {
    const status: RefreshStatus = { refreshed_at: new Date().toISOString(), consecutive_failures: 0 };
    await this.redis
      .multi()
      .set(this.currentKey(name), JSON.stringify(meta))
      .set(this.statusKey(name), JSON.stringify(status))
      .publish(this.channel, name)
      .exec();
  }

  /** What each source location last served (source-fetch.ts), for conditional requests. */
  async sourceState(name: CapabilityName): Promise<Record<string, LocationState>> {
    const raw = await this.redis.get(this.sourcesKey(name));
    return raw ? (JSON.parse(raw) as Record<string, LocationState>) : {};
  }

  /** Kept only after a successful refresh: a refused file is downloaded (and refused) again. */
  async saveSourceState(name: CapabilityName, state: Record<string, LocationState>): Promise<void> {
    await this.redis.set(this.sourcesKey(name), JSON.stringify(state));
  }

  /** The source was fetched and validated and had not changed: the current snapshot is fresh again. */
  async confirm(name: CapabilityName): Promise<void> {
    const status: RefreshStatus = { refreshed_at: new Date().toISOString(), consecutive_failures: 0 };
    await this.redis
      .multi()
      .set(this.statusKey(name), JSON.stringify(status))
      .publish(this.channel, name)
      .exec();
  }

  /** Records a failed refresh; the current snapshot stays and keeps its `refreshed_at`. */
  async recordFailure(name: CapabilityName, error: string): Promise<void> {
    const raw = await this.redis.get(this.statusKey(name));
    const before: RefreshStatus = raw ? JSON.parse(raw) : { consecutive_failures: 0 };
    const status: RefreshStatus = {
      ...(before.refreshed_at ? { refreshed_at: before.refreshed_at } : {}),
      last_error: error,
      last_error_at: new Date().toISOString(),
      consecutive_failures: before.consecutive_failures + 1,
    };
    await this.redis
      .multi()
      .set(this.statusKey(name), JSON.stringify(status))
      .publish(this.channel, name)
      .exec();
  }
}
