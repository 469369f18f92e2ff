import { describe, expect, it } from 'vitest';
import { SecondWindow } from './second-window.ts';

describe('SecondWindow', () => {
  it('counts per key within a whole second and starts again in the next', () => {
    const w = new SecondWindow(10);
    expect(w.hit('a', 1_000)).toBe(1);
    expect(w.hit('a', 1_999)).toBe(2);
    expect(w.count('b', 1_999)).toBe(0);
    expect(w.count('a', 2_000)).toBe(0);
  });

  it('tracks at most maxTracked callers a second (fails open past it)', () => {
    const w = new SecondWindow(2);
    w.hit('a', 0);
    w.hit('b', 0);
    w.hit('c', 0);
    expect(w.count('c', 0)).toBe(0);
    expect(w.hit('a', 0)).toBe(2);
  });
});
