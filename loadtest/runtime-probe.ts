/**
 * Preloaded into a measured server by the bench (`node --import ./loadtest/runtime-probe.ts ...`,
 * spawned with an IPC channel): event-loop delay, GC pauses and RSS of that process over a window
 * the bench opens and closes by message, so a saturation or latency step names what its tail
 * waited on. Not part of the services: nothing runs unless the bench preloads it.
 */
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import type { RuntimeStats } from './runtime-stats.ts';

const delay = monitorEventLoopDelay({ resolution: 10 });
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
      loopDelayP50Ms: delay.percentile(50) / 1e6,
      loopDelayP99Ms: delay.percentile(99) / 1e6,
      loopDelayMaxMs: delay.max / 1e6,
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
