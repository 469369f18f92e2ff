import { describe, expect, it } from 'vitest';
import { HistoryLookups } from './history-lookups.ts';

describe('HistoryLookups', () => {
  it('refuses past the node total and past an organisation share, and frees slots on release', () => {
    const l = new HistoryLookups(3, 2);
    const a1 = l.acquire('a');
    l.acquire('a');
    expect(() => l.acquire('a')).toThrow(/busy/);
    const b1 = l.acquire('b');
    expect(() => l.acquire('c')).toThrow(/busy/);
    b1();
    b1(); // releasing twice frees one slot only
    expect(l.inFlight).toBe(2);
    a1();
    expect(() => l.acquire('a')).not.toThrow();
  });
});
