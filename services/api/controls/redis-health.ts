/**
 * Whether an admission asks Redis or this node's local controls (local.ts). After a Redis error
 * the node stays local for RETRY_REDIS_AFTER_MS; while degraded, one request per interval probes
 * Redis and the others stay local, so a Redis that is slow rather than down is not hit by every
 * request waiting out the command timeout.
 */

/** After a Redis error, requests use the local controls this long before Redis is tried again. */
export const RETRY_REDIS_AFTER_MS = 1_000;

export class RedisHealth {
  private downUntil = 0;
  private degraded = false;

  /** Whether this request asks Redis; `ready`: the client is connected. */
  usable(now: number, ready: boolean): boolean {
    if (!ready || now < this.downUntil) return false;
    if (this.degraded) this.downUntil = now + RETRY_REDIS_AFTER_MS;
    return true;
  }

  /** A script failed. True when this starts a spell of local controls (worth one log line). */
  failed(now: number): boolean {
    this.downUntil = now + RETRY_REDIS_AFTER_MS;
    const began = !this.degraded;
    this.degraded = true;
    return began;
  }

  /** A script answered. True when this ends a spell of local controls. */
  ok(): boolean {
    const ended = this.degraded;
    this.degraded = false;
    return ended;
  }
}

/**
 * A script that timed out may still run once Redis catches up, and bill there: such a request is
 * not billed again locally (an outage may under-bill by a few credits, never double).
 */
export function mayHaveRun(err: unknown): boolean {
  return err instanceof Error && err.message === 'Command timed out';
}
