import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../../infra/harness/wait.ts';
import { PROBE_ARGS, readProbes, resetProbes } from '../../loadtest/runtime-stats.ts';

// `npm run bench` names a tail's cause from this probe: a blocked loop and collected garbage show.
describe('the runtime probe the bench preloads into the API nodes', () => {
  it('reports a 40 ms stall of the event loop, the stalls over the budget, GC pauses, RSS and heap over the window it was asked for', async () => {
    const busy =
      'setInterval(() => { const t = Date.now(); while (Date.now() - t < 40); globalThis.junk = new Array(2e5).fill({}); }, 200)';
    const child = spawn(process.execPath, [...PROBE_ARGS, '-e', busy], {
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    try {
      // Until the preloaded probe answers (a message sent before it listens is lost).
      await waitFor('the probe to open its window', () => resetProbes([child]).then(() => true));
      // Until the window holds a stall and a collection (the busy loop makes one every 200 ms).
      const stats = await waitFor('a stall and a GC reported', async () => {
        const [s] = await readProbes([child]);
        return s!.loopDelayMaxMs >= 30 && s!.gcCount > 0 ? s : undefined;
      });
      expect(stats!.loopDelayMaxMs).toBeGreaterThanOrEqual(30);
      expect(stats!.loopDelayP50Ms).toBeLessThan(stats!.loopDelayMaxMs);
      // Every stall of the busy loop is twice the 20 ms budget.
      expect(stats!.stallsOverBudget).toBeGreaterThan(0);
      expect(stats!.heapLiveMb).toBeGreaterThan(0);
      expect(stats!.gcCount).toBeGreaterThan(0);
      expect(stats!.gcMaxMs).toBeLessThanOrEqual(stats!.gcTotalMs);
      expect(stats!.rssMb).toBeGreaterThan(10);
    } finally {
      child.kill();
    }
  });
});
