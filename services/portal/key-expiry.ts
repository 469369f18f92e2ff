import type { Logger } from '../../shared/logger.ts';
import type { KeyRecord, OrgStore } from '../../shared/orgs/store.ts';

/**
 * Revokes rolled keys when their overlap ends. The API nodes already refuse a key past its
 * `expires_at` from their replicas; the revocation then makes it final everywhere (published on
 * `frs:keys:revoked`, its quota place returned). A portal that restarts during an overlap loses
 * its timer: the Keys page revokes any key past its end when it is next listed (`sweep`).
 */
export class KeyExpiry {
  private readonly orgs: OrgStore;
  private readonly log: Logger;
  private readonly timers = new Map<string, NodeJS.Timeout>();

  constructor(orgs: OrgStore, log: Logger) {
    this.orgs = orgs;
    this.log = log;
  }

  schedule(keyId: string, atMs: number): void {
    clearTimeout(this.timers.get(keyId));
    const timer = setTimeout(
      () => {
        this.timers.delete(keyId);
        this.orgs
          .revokeKey(keyId)
          .catch((err: unknown) => this.log.warn({ err, keyId }, 'rolled key revocation failed'));
      },
      Math.max(0, atMs - Date.now()),
    );
    timer.unref();
    this.timers.set(keyId, timer);
  }

  /** Revokes the listed keys whose overlap is over; returns the list as it now stands. */
  async sweep(keys: KeyRecord[], now = Date.now()): Promise<KeyRecord[]> {
    const over = keys.filter(
      (k) => k.status === 'active' && k.expires_at !== undefined && k.expires_at <= now,
    );
    await Promise.all(over.map((k) => this.orgs.revokeKey(k.key_id)));
    const ended = new Set(over.map((k) => k.key_id));
    return keys.map((k) => (ended.has(k.key_id) ? { ...k, status: 'revoked' as const } : k));
  }

  stop(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
  }
}
