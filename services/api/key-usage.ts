import type { RedisClient } from '../../shared/clients/redis.ts';
import type { Logger } from '../../shared/logger.ts';
import { keysLastUsedKey } from '../../shared/orgs/keyspace.ts';

/**
 * "Last used" of each API key for the portal's Keys page, kept off the request path: a request
 * only records the time in memory; a timer writes every key touched since the last flush, one
 * ZADD per organisation (one key each, so each lands on its own slot's node of a cluster), so each
 * key costs Redis at most one write per interval whatever its traffic.
 * `ZADD GT` keeps the latest time when several nodes flush the same key in any order.
 */
export class KeyUsage {
  private readonly redis: RedisClient;
  private readonly log: Logger;
  private pending = new Map<string, { orgId: string; at: number }>();
  private timer: NodeJS.Timeout | undefined;

  constructor(redis: RedisClient, log: Logger) {
    this.redis = redis;
    this.log = log;
  }

  /** On every authenticated request: one Map write, no I/O. */
  touch(orgId: string, keyId: string, at = Date.now()): void {
    this.pending.set(keyId, { orgId, at });
  }

  async flush(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    const byOrg = new Map<string, (string | number)[]>();
    for (const [keyId, { orgId, at }] of batch) {
      const members = byOrg.get(orgId) ?? [];
      members.push(at, keyId);
      byOrg.set(orgId, members);
    }
    try {
      // Auto-pipelined: one write per node however many organisations; any refusal (NOPERM from
      // an ACL without the write, a wrong type) counts as a failed flush, not as times written.
      await Promise.all(
        [...byOrg].map(([orgId, members]) => this.redis.zadd(keysLastUsedKey(orgId), 'GT', ...members)),
      );
    } catch (err) {
      // Redis unreachable or the write refused: keep the times (newer touches win) and try again
      // at the next tick; the warning says why.
      for (const [keyId, v] of batch) if (!this.pending.has(keyId)) this.pending.set(keyId, v);
      this.log.warn({ err }, 'key last-used times not written; will retry');
    }
  }

  start(intervalMs: number): void {
    this.timer = setInterval(() => void this.flush(), intervalMs);
    this.timer.unref();
  }

  /** Stops the timer and writes what is pending. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}
