import { describe, expect, it } from 'vitest';
import { findV4, toV4Bounds } from './ip-ranges.ts';

/** Disjoint sorted ranges from a seeded generator: short ones, ones spanning many /16s, gaps. */
function ranges(seed: number, n: number): { starts: number[]; ends: number[] } {
  let x = seed;
  const next = () => (x = (Math.imul(x, 1103515245) + 12345) >>> 0);
  const starts: number[] = [];
  const ends: number[] = [];
  let at = next() % 4096;
  for (let i = 0; i < n && at <= 0xffffffff; i++) {
    const width = next() % 8 === 0 ? next() % 0x200000 : next() % 600; // some span /16s
    const end = Math.min(at + width, 0xffffffff);
    starts.push(at);
    ends.push(end);
    at = end + 1 + (next() % 3 === 0 ? 0 : next() % 40_000);
  }
  return { starts, ends };
}

/** The row holding addr by a linear scan: what findV4 must answer. */
function scan(starts: number[], ends: number[], addr: number): number {
  for (let i = 0; i < starts.length; i++) if (starts[i]! <= addr && addr <= ends[i]!) return i;
  return -1;
}

describe('findV4', () => {
  it('answers as a linear scan does, at every range edge and the ends of the address space', () => {
    for (const seed of [1, 2, 3]) {
      const { starts, ends } = ranges(seed, 3000);
      const bounds = toV4Bounds(starts, ends);
      const probes = [0, 1, 0xffff, 0x10000, 0xfffffffe, 0xffffffff];
      for (let i = 0; i < starts.length; i++)
        probes.push(starts[i]!, ends[i]!, Math.max(0, starts[i]! - 1), Math.min(0xffffffff, ends[i]! + 1));
      for (let i = 0; i < 2000; i++) probes.push(Math.floor(Math.random() * 2 ** 32));
      for (const addr of probes) expect(findV4(bounds, addr), `addr ${addr}`).toBe(scan(starts, ends, addr));
    }
  });

  it('finds a range that began in an earlier /16, one covering the whole space, and none in an empty table', () => {
    const wide = toV4Bounds([0x0a000000], [0x0affffff]); // 10.0.0.0/8: 256 /16s
    expect(findV4(wide, 0x0a7f0001)).toBe(0);
    expect(findV4(wide, 0x0b000000)).toBe(-1);
    expect(findV4(toV4Bounds([0], [0xffffffff]), 0xffffffff)).toBe(0);
    expect(findV4(toV4Bounds([], []), 0x01020304)).toBe(-1);
  });
});
