/**
 * The one retry-with-backoff of the services: pauses that start at `firstMs` and double after
 * each failure up to `maxMs` (equal to `firstMs`, the default: a fixed pause). Written here rather
 * than taken from p-retry because every loop that retries also has to stop on its own condition
 * (a consumer no longer running, a service stopping) and some keep one backoff across calls of a
 * library's callback (the sink's insert splitter), which p-retry's one-promise shape does not fit.
 */
import { setTimeout as sleep } from 'node:timers/promises';

export class Backoff {
  private readonly firstMs: number;
  private readonly maxMs: number;
  private nextMs: number;

  constructor(firstMs: number, maxMs = firstMs) {
    if (!(firstMs > 0) || !(maxMs >= firstMs)) throw new RangeError(`bad backoff ${firstMs}..${maxMs} ms`);
    this.firstMs = firstMs;
    this.maxMs = maxMs;
    this.nextMs = firstMs;
  }

  /** The pause the next `wait` takes. */
  get ms(): number {
    return this.nextMs;
  }

  /** Returns the pause to take now and doubles the next one (up to the maximum). */
  next(): number {
    const ms = this.nextMs;
    this.nextMs = Math.min(ms * 2, this.maxMs);
    return ms;
  }

  /** Pauses for `next()`. */
  wait(): Promise<void> {
    return sleep(this.next());
  }

  /** After a success: the next failure pauses `firstMs` again. */
  reset(): void {
    this.nextMs = this.firstMs;
  }
}

export interface RetryOptions {
  firstMs: number;
  /** Longest pause (default `firstMs`: a fixed pause). */
  maxMs?: number;
  /** Checked before every attempt; false gives up (the result is then undefined). Default: always. */
  keepGoing?: () => boolean;
  /** Called after each failure, with the error and the pause that follows, before pausing. */
  onFailure?: (err: unknown, pauseMs: number) => void | Promise<void>;
}

/**
 * Calls `fn` until it resolves, pausing after each failure; resolves to its value, or to undefined
 * once `keepGoing` says stop. Never rejects because of `fn`: the caller decides when to stop.
 */
export async function retry<T>(fn: () => Promise<T>, opts: RetryOptions): Promise<T | undefined> {
  const backoff = new Backoff(opts.firstMs, opts.maxMs);
  const keepGoing = opts.keepGoing ?? (() => true);
  while (keepGoing()) {
    try {
      return await fn();
    } catch (err) {
      await opts.onFailure?.(err, backoff.ms);
      await backoff.wait();
    }
  }
  return undefined;
}
