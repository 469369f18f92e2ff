import type { ControlScope } from '../../../shared/orgs/keyspace.ts';
import type { Org } from '../../../shared/orgs/store.ts';

export interface LocalDecision {
  outcome: 'admitted' | 'rate_limited' | 'credits_exhausted';
  /** What this node permits per second for the organisation while on its own. */
  limit: number;
  remaining: number;
  creditsRemaining: number;
}

/**
 * The controls of one node while Redis is unreachable: a bounded stand-in, not a replica.
 *
 * - Rate: a fixed one-second window per organisation at `floor(rate_rps / nodeCount)` (at least
 *   1), so N nodes together stay within the organisation's rate.
 * - Credits: billed into a local ledger that is reconciled into Redis when it is back. A node may
 *   bill at most its share (`1/nodeCount`) of what was left of allowance + grace when it last saw
 *   Redis's count for that organisation; an organisation this node has no count for is admitted,
 *   bounded by the local rate, rather than told its account needs attention because of our outage.
 */
export class LocalControls {
  private readonly nodeCount: number;
  private readonly windows = new Map<string, { second: number; n: number }>();
  /** Credits billed here and not yet in Redis, by credits key. May go negative after refunds. */
  private readonly unreconciled = new Map<string, number>();
  /**
   * Drained for reconciliation and not yet confirmed in Redis, by credits key: still this node's
   * billing, so still counted against its budget while Redis is away.
   */
  private readonly settling = new Map<string, number>();
  /** Credits used per credits key, as Redis last reported them to this node. */
  private readonly lastSeen = new Map<string, number>();

  constructor(nodeCount: number) {
    this.nodeCount = nodeCount;
  }

  /** Records Redis's count of used credits, the base of the local budget during an outage. */
  observe(creditsKey: string, used: number): void {
    this.lastSeen.set(creditsKey, used);
  }

  /**
   * `bill` false: the request may already be billed in Redis (a timed-out script), count nothing.
   * `creditsKey` null: a request that is never billed (outcomes); only the rate applies.
   */
  admit(
    org: Org,
    creditsKey: string | null,
    nowMs: number,
    bill = true,
    scope: ControlScope = 'score',
  ): LocalDecision {
    const limit = Math.max(1, Math.floor(org.rate_rps / this.nodeCount));
    const second = Math.floor(nowMs / 1000);
    const windowKey = `${scope}:${org.org_id}`;
    let w = this.windows.get(windowKey);
    if (!w || w.second !== second) {
      w = { second, n: 0 };
      this.windows.set(windowKey, w);
    }
    const seen = creditsKey === null ? undefined : this.lastSeen.get(creditsKey);
    const billedHere = () =>
      creditsKey === null
        ? 0
        : (this.unreconciled.get(creditsKey) ?? 0) + (this.settling.get(creditsKey) ?? 0);
    const local = billedHere();
    const creditsRemaining = () => org.credits - (seen ?? 0) - billedHere();
    if (w.n >= limit)
      return { outcome: 'rate_limited', limit, remaining: 0, creditsRemaining: creditsRemaining() };
    w.n += 1;
    const remaining = limit - w.n;
    if (seen !== undefined) {
      const share = Math.ceil(Math.max(0, org.credits + org.overdraft - seen) / this.nodeCount);
      if (local >= share)
        return { outcome: 'credits_exhausted', limit, remaining, creditsRemaining: creditsRemaining() };
    }
    if (bill && creditsKey !== null)
      this.unreconciled.set(creditsKey, (this.unreconciled.get(creditsKey) ?? 0) + 1);
    return { outcome: 'admitted', limit, remaining, creditsRemaining: creditsRemaining() };
  }

  /** A request billed (locally or in Redis) failed and its refund could not reach Redis. */
  refund(creditsKey: string): void {
    this.unreconciled.set(creditsKey, (this.unreconciled.get(creditsKey) ?? 0) - 1);
  }

  get pending(): boolean {
    return this.unreconciled.size > 0;
  }

  /** Credits billed here and not yet drained for reconciliation (net of refunds). */
  get unreconciledCredits(): number {
    let n = 0;
    for (const v of this.unreconciled.values()) n += v;
    return n;
  }

  /**
   * Takes the ledger for reconciliation: each part is `settled` once Redis holds it, or handed
   * back with `restore`. Until then it still counts against the local budget.
   */
  drain(): Map<string, number> {
    const out = new Map([...this.unreconciled].filter(([, n]) => n !== 0));
    this.unreconciled.clear();
    for (const [k, n] of out) this.addTo(this.settling, k, n);
    return out;
  }

  /** Part of a drained ledger is in Redis now. */
  settled(creditsKey: string, n: number): void {
    this.addTo(this.settling, creditsKey, -n);
  }

  restore(ledger: Map<string, number>): void {
    for (const [k, n] of ledger) {
      this.addTo(this.settling, k, -n);
      this.unreconciled.set(k, (this.unreconciled.get(k) ?? 0) + n);
    }
  }

  private addTo(map: Map<string, number>, key: string, n: number): void {
    const v = (map.get(key) ?? 0) + n;
    if (v === 0) map.delete(key);
    else map.set(key, v);
  }
}
