import type { CreditEvent } from './credit-journal.ts';

/** An idempotent request admitted locally: billed by settle.lua unless its key was billed already. */
export interface Uncertain {
  key: string;
  idemKey: string;
  fp: string;
}

/**
 * What this node owes Redis besides its local ledger (local.ts): drained credits sent to Redis and
 * not confirmed, by batch id (sent again with the same id), and idempotent requests admitted
 * locally after their script got no reply, by token (whether Redis billed them is settled once
 * it answers again, settle.lua).
 */
export class Owed {
  readonly batches = new Map<string, { key: string; n: number }>();
  readonly uncertain = new Map<string, Uncertain>();

  /** Gives each key's drained credits a batch of its own; returns the journal lines recording them. */
  batch(drained: ReadonlyMap<string, number>, newId: () => string): CreditEvent[] {
    const events: CreditEvent[] = [];
    for (const [key, n] of drained) {
      const id = newId();
      this.batches.set(id, { key, n });
      events.push({ t: 'b', id, k: key, n });
    }
    return events;
  }

  get empty(): boolean {
    return this.batches.size === 0 && this.uncertain.size === 0;
  }

  /** Each batch's credits, and one for each uncertain request (it may owe one). */
  get credits(): number {
    let n = this.uncertain.size;
    for (const b of this.batches.values()) n += b.n;
    return n;
  }
}
