/**
 * Preloaded into a measured server by the bench (`node --import ./loadtest/runtime-probe.ts ...`,
 * spawned with an IPC channel): event-loop delay, GC pauses and RSS of that process over a window
 * the bench opens and closes by message, so a saturation or latency step names what its tail
 * waited on. Not part of the services: nothing runs unless the bench preloads it.
 */
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import type { RuntimeStats } from './runtime-stats.ts';

// The histogram records the interval between the sampling timer's runs, the timer's own 10 ms
// included: what is reported is the excess over it, the time the loop was busy past its turn.
const RESOLUTION_MS = 10;
const delay = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
const excessMs = (ns: number) => Math.max(0, ns / 1e6 - RESOLUTION_MS);
delay.enable();
let gc = { count: 0, totalMs: 0, maxMs: 0 };
let rssMax = 0;
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    gc.count += 1;
    gc.totalMs += e.duration;
    gc.maxMs = Math.max(gc.maxMs, e.duration);
  }
}).observe({ entryTypes: ['gc'] });
// RSS peaks between reads; a sample every 100 ms bounds what is missed.
setInterval(() => (rssMax = Math.max(rssMax, process.memoryUsage.rss())), 100).unref();

process.on('message', (m) => {
  if (m === 'runtime-probe:reset') {
    delay.reset();
    gc = { count: 0, totalMs: 0, maxMs: 0 };
    rssMax = process.memoryUsage.rss();
    process.send?.('runtime-probe:reset-done');
  } else if (m === 'runtime-probe:read') {
    const stats: RuntimeStats = {
      loopDelayP50Ms: excessMs(delay.percentile(50)),
      loopDelayP99Ms: excessMs(delay.percentile(99)),
      loopDelayMaxMs: excessMs(delay.max),
      gcCount: gc.count,
      gcTotalMs: gc.totalMs,
      gcMaxMs: gc.maxMs,
      rssMb: Math.max(rssMax, process.memoryUsage.rss()) / 2 ** 20,
    };
    process.send?.(stats);
  }
});
// The channel must not keep a server alive that is told to stop.
process.channel?.unref();
