import { describe, expect, it } from 'vitest';
import { Owed } from './owed.ts';

const K = 'frs:credits:{org_a}:2026-11';
const L = 'frs:credits:{org_b}:2026-11';

describe('what a node owes Redis besides its local ledger', () => {
  it("gives each key's drained credits a batch with an id of its own, and the journal lines for them", () => {
    const owed = new Owed();
    let n = 0;
    const events = owed.batch(
      new Map([
        [K, 3],
        [L, 1],
      ]),
      () => `b${++n}`,
    );
    expect(events).toEqual([
      { t: 'b', id: 'b1', k: K, n: 3 },
      { t: 'b', id: 'b2', k: L, n: 1 },
    ]);
    expect(owed.batches).toEqual(
      new Map([
        ['b1', { key: K, n: 3 }],
        ['b2', { key: L, n: 1 }],
      ]),
    );
  });

  it("counts each batch's credits and one credit for each uncertain request", () => {
    const owed = new Owed();
    expect([owed.empty, owed.credits]).toEqual([true, 0]);
    owed.batch(new Map([[K, 3]]), () => 'b1');
    owed.uncertain.set('t1', { key: K, idemKey: 'frs:idem:{org_a}:x', fp: 'fp' });
    expect([owed.empty, owed.credits]).toEqual([false, 4]);
    owed.batches.delete('b1');
    expect([owed.empty, owed.credits]).toEqual([false, 1]);
  });

  it('makes no batch of an empty drain', () => {
    const owed = new Owed();
    expect(owed.batch(new Map(), () => 'b1')).toEqual([]);
    expect(owed.empty).toBe(true);
  });
});
