import { describe, expect, it } from 'vitest';
import { unsettledOf, type CreditEvent } from './credit-journal.ts';

const lines = (...events: CreditEvent[]) => events.map((e) => `${JSON.stringify(e)}\n`).join('');
const K = 'frs:credits:{org_a}:2026-11';

describe('unsettledOf', () => {
  it('leaves batches not done, credits no batch covers (net of refunds) and idempotent ones not settled', () => {
    const left = unsettledOf(
      lines(
        { t: 'a', id: 'a1', k: K },
        { t: 'a', id: 'a2', k: K },
        { t: 'b', id: 'b1', k: K, n: 2 },
        { t: 'a', id: 'a3', k: K },
        { t: 'a', id: 'a4', k: K },
        { t: 'a', id: 'a5', k: K },
        { t: 'r', id: 'a5', k: K },
        { t: 'u', id: 'u1', k: K, i: 'frs:idem:{org_a}:x', f: 'fp' },
        { t: 'u', id: 'u2', k: K, i: 'frs:idem:{org_a}:y', f: 'fp' },
        { t: 'r', id: 'u2' },
        { t: 'a', id: 'a6', k: 'frs:credits:{org_b}:2026-11' },
        { t: 'b', id: 'b2', k: 'frs:credits:{org_b}:2026-11', n: 1 },
        { t: 'd', id: 'b2' },
      ) + '{"t":"a","id":"torn","k":"frs:cre', // a crash mid-line: ignored
    );
    expect(left.batches).toEqual(new Map([['b1', { key: K, n: 2 }]]));
    expect([...left.loose.keys()]).toEqual([K]);
    expect(left.loose.get(K)!.n).toBe(2);
    expect(left.idempotent).toEqual(new Map([['u1', { key: K, idemKey: 'frs:idem:{org_a}:x', fp: 'fp' }]]));
  });

  it('gives the credits no batch covers the same batch id each time the same lines are read', () => {
    const text = lines({ t: 'a', id: 'a1', k: K }, { t: 'a', id: 'a2', k: K });
    const id = unsettledOf(text).loose.get(K)!.id;
    expect(unsettledOf(text).loose.get(K)!.id).toBe(id);
    expect(unsettledOf(text + lines({ t: 'a', id: 'a3', k: K })).loose.get(K)!.id).not.toBe(id);
  });

  it('reads an empty or missing journal as nothing to settle', () => {
    expect(unsettledOf('')).toEqual({ batches: new Map(), loose: new Map(), idempotent: new Map() });
  });
});
