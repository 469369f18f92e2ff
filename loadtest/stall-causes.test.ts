import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { CpuProfile } from './cpuprofile-stages.ts';
import { describeStall, explainStalls, findStalls } from './stall-causes.ts';

const ROOT = pathToFileURL(join(import.meta.dirname, '..')).href + '/';
const frame = (id: number, functionName: string, url = '', children: number[] = []) => ({
  id,
  callFrame: { functionName, url, lineNumber: 9 },
  children,
});

/** (root) > idle | GC | a timer callback of the project > a package function. */
const nodes = [
  frame(1, '(root)', '', [2, 3, 4]),
  frame(2, '(idle)'),
  frame(3, '(garbage collector)'),
  frame(4, 'sync', `${ROOT}services/api/capabilities/snapshot-cache.ts`, [5]),
  frame(5, 'parse', `${ROOT}node_modules/some-pkg/index.js`),
];

/** A profile of `samples` (node ids), one every `stepUs`, with `gaps` (sample index -> extra µs). */
function profile(samples: number[], stepUs: number, gaps: Record<number, number> = {}): CpuProfile {
  const timeDeltas = samples.map((_, i) => stepUs + (gaps[i] ?? 0));
  const endTime = 1_000 + timeDeltas.reduce((a, b) => a + b, 0) + stepUs;
  return { nodes, startTime: 1_000, endTime, samples, timeDeltas };
}

describe('stalls found in a CPU profile', () => {
  it('is a stretch with no idle sample, longer than the budget, with what ran and what it ran under', () => {
    // 1 ms samples: 5 idle, 30 busy (the package under the project's callback, then GC), 5 idle.
    const busy = [...Array<number>(20).fill(5), ...Array<number>(10).fill(3)];
    const p = profile([...Array<number>(5).fill(2), ...busy, ...Array<number>(5).fill(2)], 1_000);
    const stalls = findStalls(p, p.startTime, p.endTime, 20_000, 1_000);
    expect(stalls).toHaveLength(1);
    const [s] = stalls;
    expect(s!.durationUs).toBe(30_000);
    expect(s!.gcUs).toBe(10_000);
    expect(s!.offCoreUs).toBe(0);
    expect(s!.by[0]).toEqual(['pkg:some-pkg', 20_000]);
    expect(s!.under[0]).toEqual(['services/api/capabilities/snapshot-cache.ts:sync:10', 20_000]);
    expect(describeStall(s!)).toMatch(
      /^30\.0 ms at \+0\.01 s \(GC 10\.0, no core 0\.0 ms\): pkg:some-pkg 67 %/,
    );
  });

  it('counts a gap between samples far past the interval as time without a core', () => {
    const p = profile([2, 5, 5, 5, 2], 1_000, { 2: 25_000 });
    const [s] = findStalls(p, p.startTime, p.endTime, 20_000, 1_000);
    expect(s!.durationUs).toBe(28_000);
    // The sample before the gap stands for 26 ms, 23 of them beyond three intervals.
    expect(s!.offCoreUs).toBe(23_000);
  });

  it('ignores busy stretches under the budget, and what lies outside the window', () => {
    const p = profile([2, 5, 5, 2, 5, 5, 5, 5], 10_000);
    expect(findStalls(p, p.startTime, p.endTime, 30_000, 10_000)).toHaveLength(1);
    expect(findStalls(p, p.startTime, p.startTime + 40_000, 30_000, 10_000)).toHaveLength(0);
  });

  it('explains a stall the probe saw from the samples of its window, idle ones as time without a core', () => {
    // 1 ms samples from 1 ms: 10 idle, 10 of the package, 10 idle (woken, waiting for a core).
    const p = profile(
      [...Array<number>(10).fill(2), ...Array<number>(10).fill(5), ...Array<number>(10).fill(2)],
      1_000,
    );
    const [s] = explainStalls(p, [[p.startTime + 31_000, 20]], p.startTime, 1_000);
    expect(s!.atUs).toBe(11_000);
    expect(s!.durationUs).toBe(20_000);
    expect(s!.by).toEqual([['pkg:some-pkg', 10_000]]);
    expect(s!.offCoreUs).toBe(10_000);
  });
});
