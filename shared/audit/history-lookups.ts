import { ApiError } from '../contract/errors.ts';

/**
 * Bounds the ClickHouse lookups explain makes on a cache miss: at most `maxTotal` in flight per
 * node (ClickHouse serves the sink's inserts too), and at most `maxPerOrg` of those for one
 * organisation, so one caller cannot take every slot. A lookup that finds no slot is answered
 * 503 at once with Retry-After: waiting would only hold the connection.
 */
export class HistoryLookups {
  private total = 0;
  private readonly perOrg = new Map<string, number>();
  private readonly maxTotal: number;
  private readonly maxPerOrg: number;

  constructor(maxTotal: number, maxPerOrg: number) {
    this.maxTotal = maxTotal;
    this.maxPerOrg = maxPerOrg;
  }

  get inFlight(): number {
    return this.total;
  }

  /** A release function, or a 503 ApiError thrown when no slot is free. */
  acquire(orgId: string): () => void {
    const mine = this.perOrg.get(orgId) ?? 0;
    if (this.total >= this.maxTotal || mine >= this.maxPerOrg) {
      throw new ApiError(
        503,
        { code: 'E_HISTORY_BUSY', message: 'score history is busy; retry shortly' },
        { 'Retry-After': '1' },
      );
    }
    this.total++;
    this.perOrg.set(orgId, mine + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.total--;
      const left = (this.perOrg.get(orgId) ?? 1) - 1;
      if (left <= 0) this.perOrg.delete(orgId);
      else this.perOrg.set(orgId, left);
    };
  }
}
