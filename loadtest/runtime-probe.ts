/**
 * Preloaded into a measured server by the bench (`node --import ./loadtest/runtime-probe.ts ...`,
 * spawned with an IPC channel): event-loop delay, GC pauses and RSS of that process over a window
 * the bench opens and closes by message, so a saturation or latency step names what its tail
 * waited on. Not part of the services: nothing runs unless the bench preloads it.
 */
import { constants, monitorEventLoopDelay, performance, PerformanceObserver } from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';
import { STALL_BUDGET_MS, type RuntimeStats } from './runtime-stats.ts';

// The histogram records the interval between the sampling timer's runs, the timer's own 10 ms
// included: what is reported is the excess over it, the time the loop was busy past its turn.
const RESOLUTION_MS = 10;
const delay = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
const excessMs = (ns: number) => Math.max(0, ns / 1e6 - RESOLUTION_MS);
delay.enable();
let gc = { count: 0, totalMs: 0, maxMs: 0 };
let rssMax = 0;
/**
 * The live heap: what a mark-compact left, read just after one (kept across windows, since a
 * quiet step may see none). What the heap holds between collections is mostly garbage.
 */
let heapLiveMb = getHeapStatistics().used_heap_size / 2 ** 20;
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    gc.count += 1;
    gc.totalMs += e.duration;
    gc.maxMs = Math.max(gc.maxMs, e.duration);
    const kind = (e as { detail?: { kind?: number } }).detail?.kind;
    if (kind === constants.NODE_PERFORMANCE_GC_MAJOR)
      heapLiveMb = getHeapStatistics().used_heap_size / 2 ** 20;
  }
}).observe({ entryTypes: ['gc'] });
// The histogram has no count above a threshold, so stalls over the budget are counted here: a
// 10 ms timer late by more than the budget ran behind a stall at least that long. Each is kept as
// [when the timer ran (µs, the monotonic clock a CPU profile uses), how late it was (ms)], so
// loadtest/stall-finder.ts can look up what ran in it.
const MAX_KEPT = 10_000;
let stalls: [number, number][] = [];
let stallCount = 0;
let lastTick = performance.now();
setInterval(() => {
  const now = performance.now();
  const late = now - lastTick - RESOLUTION_MS;
  if (late > STALL_BUDGET_MS) {
    stallCount += 1;
    if (stalls.length < MAX_KEPT) stalls.push([Number(process.hrtime.bigint() / 1000n), late]);
  }
  lastTick = now;
}, RESOLUTION_MS).unref();
// RSS peaks between reads; a sample every 100 ms bounds what is missed.
setInterval(() => (rssMax = Math.max(rssMax, process.memoryUsage.rss())), 100).unref();

process.on('message', (m) => {
  if (m === 'runtime-probe:reset') {
    delay.reset();
    gc = { count: 0, totalMs: 0, maxMs: 0 };
    stalls = [];
    stallCount = 0;
    rssMax = process.memoryUsage.rss();
    process.send?.('runtime-probe:reset-done');
  } else if (m === 'runtime-probe:read') {
    const stats: RuntimeStats = {
      loopDelayP50Ms: excessMs(delay.percentile(50)),
      loopDelayP99Ms: excessMs(delay.percentile(99)),
      loopDelayMaxMs: excessMs(delay.max),
      stallsOverBudget: stallCount,
      gcCount: gc.count,
      gcTotalMs: gc.totalMs,
      gcMaxMs: gc.maxMs,
      rssMb: Math.max(rssMax, process.memoryUsage.rss()) / 2 ** 20,
      heapLiveMb,
    };
    process.send?.(stats);
  } else if (m === 'runtime-probe:stalls') {
    process.send?.({ stalls });
  }
});
// The channel must not keep a server alive that is told to stop.
process.channel?.unref();
