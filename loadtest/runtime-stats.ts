/** The bench's side of loadtest/runtime-probe.ts: open a window, read what it saw. */
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';

/**
 * The stall budget (docs/performance.md): no event-loop stall of an API node longer than this at
 * a quarter of saturation. A request that arrives behind a stall waits it out whole.
 */
export const STALL_BUDGET_MS = 20;

/** What one process saw in one window. */
export interface RuntimeStats {
  loopDelayP50Ms: number;
  loopDelayP99Ms: number;
  /** The longest stall: the excess over the timer's 10 ms of its latest run. */
  loopDelayMaxMs: number;
  /** Stalls longer than the budget (STALL_BUDGET_MS, 20 ms) in the window. */
  stallsOverBudget: number;
  gcCount: number;
  gcTotalMs: number;
  gcMaxMs: number;
  /** Peak resident set in the window (sampled every 100 ms). */
  rssMb: number;
  /** The heap a mark-compact left (its latest, whenever it ran). */
  heapLiveMb: number;
}

/** Node options that preload the probe; spawn the process with an 'ipc' stdio slot. */
export const PROBE_ARGS = ['--import', join(import.meta.dirname, 'runtime-probe.ts')];

function ask<T>(child: ChildProcess, message: string, accept: (m: unknown) => T | undefined): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.off('message', onMessage);
      reject(
        new Error(
          `pid ${child.pid}: no answer to ${message} (is it spawned with the runtime probe and IPC?)`,
        ),
      );
    }, 10_000);
    const onMessage = (m: unknown) => {
      const v = accept(m);
      if (v === undefined) return;
      clearTimeout(timer);
      child.off('message', onMessage);
      resolve(v);
    };
    child.on('message', onMessage);
    child.send(message);
  });
}

/** Starts a window in each process; resolves once every one has reset (before load starts). */
export async function resetProbes(children: ChildProcess[]): Promise<void> {
  await Promise.all(
    children.map((c) =>
      ask(c, 'runtime-probe:reset', (m) => (m === 'runtime-probe:reset-done' ? true : undefined)),
    ),
  );
}

export function readProbes(children: ChildProcess[]): Promise<RuntimeStats[]> {
  return Promise.all(
    children.map((c) =>
      ask(c, 'runtime-probe:read', (m) =>
        typeof m === 'object' && m !== null ? (m as RuntimeStats) : undefined,
      ),
    ),
  );
}

/** Each process's stalls over the budget in the window: [end µs (monotonic clock), ms late]. */
export function readStalls(children: ChildProcess[]): Promise<[number, number][][]> {
  return Promise.all(
    children.map((c) =>
      ask(c, 'runtime-probe:stalls', (m) =>
        typeof m === 'object' && m !== null && 'stalls' in m
          ? (m as { stalls: [number, number][] }).stalls
          : undefined,
      ),
    ),
  );
}

/**
 * Several processes (the 2 API nodes) as one: the worst node's delay and RSS, the GC pauses of
 * all of them counted together and the longest of any.
 */
export function combine(stats: RuntimeStats[]): RuntimeStats {
  const max = (f: (s: RuntimeStats) => number) => Math.max(...stats.map(f));
  const sum = (f: (s: RuntimeStats) => number) => stats.reduce((t, s) => t + f(s), 0);
  return {
    loopDelayP50Ms: max((s) => s.loopDelayP50Ms),
    loopDelayP99Ms: max((s) => s.loopDelayP99Ms),
    loopDelayMaxMs: max((s) => s.loopDelayMaxMs),
    stallsOverBudget: sum((s) => s.stallsOverBudget),
    gcCount: sum((s) => s.gcCount),
    gcTotalMs: sum((s) => s.gcTotalMs),
    gcMaxMs: max((s) => s.gcMaxMs),
    rssMb: max((s) => s.rssMb),
    heapLiveMb: max((s) => s.heapLiveMb),
  };
}
